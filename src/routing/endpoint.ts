/** Inference endpoints by request shape; the metric label is `endpointLabel`. */
export type Endpoint = 'chat' | 'completion' | 'generate' | 'embeddings' | 'rerank' | 'responses';
