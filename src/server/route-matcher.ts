/**
 * Matches a method and path against a route table, as axum's router does: an exact path first,
 * then patterns whose `{}` segments are parameters (`/workers/{}`,
 * `/v1/conversations/{}/items/{}`), a static segment winning over a parameter at the same place.
 * A path that matches with the wrong method is a 405 naming the methods it has; `HEAD` runs the
 * `GET` route.
 */

/** What the matcher needs of a route. */
export interface MatchableRoute {
  readonly method: string;
  /** An exact path, or a pattern where a segment that is exactly `{}` is a parameter. */
  readonly path: string;
  /** Bounded label for HTTP metrics. */
  readonly label: string;
}

export type RouteMatch<R> =
  | {
      readonly kind: 'route';
      readonly route: R;
      /** The first parameter, '' when the route has none. */
      readonly param: string;
      /** Every parameter, percent-decoded, in path order. */
      readonly params: readonly string[];
    }
  | { readonly kind: 'method_not_allowed'; readonly allowed: string[]; readonly label: string }
  | { readonly kind: 'not_found' };

const PARAM = '{}';
const NO_PARAMS: readonly string[] = Object.freeze([]);

interface Pattern<R> {
  /** `null` where the segment is a parameter. */
  readonly segments: readonly (string | null)[];
  /** Every route of the pattern, one per method. */
  readonly routes: R[];
}

function decodeParam(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    // Malformed percent-encoding: no such resource (never a thrown error in the request handler).
    return undefined;
  }
}

/**
 * Orders patterns of one length so the first that fits is axum's pick: at the first segment where
 * two differ in kind, the static one comes first.
 */
function bySpecificity<R>(a: Pattern<R>, b: Pattern<R>): number {
  for (let i = 0; i < a.segments.length; i++) {
    const aParam = a.segments[i] === null;
    const bParam = b.segments[i] === null;
    if (aParam !== bParam) return aParam ? 1 : -1;
  }
  return 0;
}

/** The parameters of `segments` under `pattern`, or undefined when the pattern does not fit. */
function fit(
  pattern: readonly (string | null)[],
  segments: readonly string[],
): string[] | undefined {
  for (let i = 0; i < pattern.length; i++) {
    const fixed = pattern[i];
    if (fixed !== null && fixed !== segments[i]) return undefined;
  }
  const params: string[] = [];
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== null) continue;
    const raw = segments[i] ?? '';
    // An empty segment is no parameter: `/workers/` and `/v1/tokenizers//status` are unknown paths.
    const value = raw === '' ? undefined : decodeParam(raw);
    if (value === undefined) return undefined;
    params.push(value);
  }
  return params;
}

function pick<R extends MatchableRoute>(
  routes: readonly R[],
  method: string,
  params: readonly string[],
): RouteMatch<R> {
  const route =
    routes.find((r) => r.method === method) ??
    (method === 'HEAD' ? routes.find((r) => r.method === 'GET') : undefined);
  if (route) return { kind: 'route', route, param: params[0] ?? '', params };
  const allowed = routes.map((r) => r.method);
  if (allowed.includes('GET')) allowed.push('HEAD');
  return { kind: 'method_not_allowed', allowed, label: routes[0]?.label ?? '' };
}

/**
 * A matcher over `routes`, grouped once: an exact path and method is one map read that allocates
 * nothing; a parameter route splits the path once and tries the patterns of its segment count.
 */
export function routeMatcher<R extends MatchableRoute>(
  routes: readonly R[],
): (method: string, pathname: string) => RouteMatch<R> {
  const byPath = new Map<string, R[]>();
  const patternsByPath = new Map<string, Pattern<R>>();
  for (const route of routes) {
    const segments = route.path.split('/');
    if (!segments.includes(PARAM)) {
      byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
      continue;
    }
    const known = patternsByPath.get(route.path);
    if (known) known.routes.push(route);
    else
      patternsByPath.set(route.path, {
        segments: segments.map((s) => (s === PARAM ? null : s)),
        routes: [route],
      });
  }
  const exact = new Map<string, Map<string, RouteMatch<R>>>();
  for (const [path, list] of byPath) {
    const byMethod = new Map<string, RouteMatch<R>>();
    for (const route of list)
      byMethod.set(route.method, { kind: 'route', route, param: '', params: NO_PARAMS });
    exact.set(path, byMethod);
  }
  const byLength = new Map<number, Pattern<R>[]>();
  for (const pattern of patternsByPath.values()) {
    const n = pattern.segments.length;
    byLength.set(n, [...(byLength.get(n) ?? []), pattern]);
  }
  for (const list of byLength.values()) list.sort(bySpecificity);

  return (method, pathname) => {
    const hit = exact.get(pathname)?.get(method);
    if (hit !== undefined) return hit;
    const fixed = byPath.get(pathname);
    if (fixed) return pick(fixed, method, NO_PARAMS);
    const segments = pathname.split('/');
    for (const pattern of byLength.get(segments.length) ?? []) {
      const params = fit(pattern.segments, segments);
      if (params !== undefined) return pick(pattern.routes, method, params);
    }
    return { kind: 'not_found' };
  };
}
