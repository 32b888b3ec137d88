/**
 * `--model-id-from`: where a discovered worker's model id comes from, as SMG's `ModelIdSource`
 * (service_discovery.rs): the pod's namespace, one of its labels, or one of its annotations.
 */

export type ModelIdSource =
  | { readonly from: 'namespace' }
  | { readonly from: 'label'; readonly key: string }
  | { readonly from: 'annotation'; readonly key: string };

/** SMG's accepted spellings: `namespace` (any case), `label:<key>`, `annotation:<key>`. */
export function parseModelIdSource(value: string): ModelIdSource | undefined {
  if (value.toLowerCase() === 'namespace') return { from: 'namespace' };
  for (const from of ['label', 'annotation'] as const) {
    const prefix = `${from}:`;
    if (value.startsWith(prefix) && value.length > prefix.length) {
      return { from, key: value.slice(prefix.length) };
    }
  }
  return undefined;
}

/** The flag's value check: the rule it breaks, or undefined. */
export function modelIdSourceProblem(value: string): string | undefined {
  return parseModelIdSource(value) === undefined
    ? 'expects namespace, label:<key> or annotation:<key>'
    : undefined;
}

/** The pod fields a source reads. */
export interface PodMetadataView {
  readonly namespace?: string | undefined;
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly annotations?: Readonly<Record<string, string>> | undefined;
}

/** The model id the pod names through `source`, or undefined (the worker's own id then stands). */
export function modelIdOf(source: ModelIdSource, meta: PodMetadataView): string | undefined {
  switch (source.from) {
    case 'namespace':
      return meta.namespace;
    case 'label':
      return meta.labels?.[source.key];
    case 'annotation':
      return meta.annotations?.[source.key];
  }
}
