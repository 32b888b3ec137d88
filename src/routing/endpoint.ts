/** Inference endpoints by request shape; the metric label is `endpointLabel`. */
export type Endpoint =
  | 'chat'
  | 'completion'
  | 'generate'
  | 'embeddings'
  | 'rerank'
  | 'responses'
  /** Anthropic's Messages API (`/v1/messages`). */
  | 'messages';
