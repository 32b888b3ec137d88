/**
 * Label selectors as SMG's discovery flags give them (`--selector app=sglang role=worker`): exact
 * `key=value` pairs, all of which a pod's labels must carry. SMG splits each entry at its first
 * `=` (main.rs `parse_selector`); the rest of the value may hold `=`.
 */

/** Label key -> required value. An empty selector matches no pod (SMG `matches_selector`). */
export type LabelSelector = ReadonlyMap<string, string>;

/**
 * A label key (optional DNS-subdomain prefix and `/`, then a name of at most 63 characters) and
 * value as the API server accepts them. A selector it would refuse would fail every list and
 * watch, so discovery would never see a pod; it is refused at startup instead.
 */
const KEY_NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;
const KEY_PREFIX = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?$/;

/** Why one `--selector` entry is not a `key=value` label pair, or undefined when it is. */
export function selectorEntryProblem(entry: string): string | undefined {
  const at = entry.indexOf('=');
  if (at <= 0) return 'expects key=value';
  const key = entry.slice(0, at);
  const value = entry.slice(at + 1);
  const slash = key.lastIndexOf('/');
  const name = slash === -1 ? key : key.slice(slash + 1);
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  if (!KEY_NAME.test(name) || (prefix !== undefined && !KEY_PREFIX.test(prefix))) {
    return 'expects key=value with a Kubernetes label key';
  }
  if (!VALUE.test(value)) return 'expects key=value with a Kubernetes label value';
  return undefined;
}

/** The selector of a flag's entries (already checked by `selectorEntryProblem`); a repeated key keeps its last value, as SMG's map. */
export function parseSelector(entries: readonly string[]): LabelSelector {
  const out = new Map<string, string>();
  for (const entry of entries) {
    const at = entry.indexOf('=');
    if (at > 0) out.set(entry.slice(0, at), entry.slice(at + 1));
  }
  return out;
}

/** Whether `labels` carry every pair of `selector`; an empty selector matches nothing. */
export function matchesSelector(
  labels: Readonly<Record<string, string>> | undefined,
  selector: LabelSelector,
): boolean {
  if (selector.size === 0 || labels === undefined) return false;
  for (const [key, value] of selector) if (labels[key] !== value) return false;
  return true;
}

/** The API server's `labelSelector` query form: `k1=v1,k2=v2`. */
export function selectorString(selector: LabelSelector): string {
  return [...selector].map(([k, v]) => `${k}=${v}`).join(',');
}

/**
 * The selector sent to the API server for the list and the watch. One watch covers every role,
 * so in PD mode it is the pairs every non-empty role selector shares (SMG
 * `list_label_selector`); the roles are told apart on this side. With no shared pair it is
 * empty: the namespace's every pod is listed and filtered here.
 */
export function serverSelector(roleSelectors: readonly LabelSelector[]): LabelSelector {
  const selectors = roleSelectors.filter((s) => s.size > 0);
  const [first, ...rest] = selectors;
  if (first === undefined) return new Map();
  return new Map([...first].filter(([k, v]) => rest.every((s) => s.get(k) === v)));
}
