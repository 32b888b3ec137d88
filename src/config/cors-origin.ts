/**
 * The rule on one `--cors-allowed-origins` entry. A browser's `Origin` header is the origin's
 * ASCII serialization (RFC 6454 §6.2; WHATWG URL "origin"): lower-case scheme and host, the
 * port only when it is not the scheme's default, no path, no trailing slash. The allow-list is
 * compared byte for byte with that header, as SMG's tower-http layer does, so an entry in any
 * other spelling can never match. SMG keeps such an entry and it silently allows nothing;
 * Switchyard refuses it at startup, naming the spelling a browser sends when there is one.
 */

/** What is wrong with `entry` as an allowed origin, or undefined when a browser can send it. */
export function corsOriginProblem(entry: string): string | undefined {
  // tower-http's `AllowOrigin::list` panics on `*`, so SMG does not start with it either.
  if (entry === '*')
    return 'expects scheme://host[:port] origins (to allow every origin, leave the flag out)';
  // Sandboxed iframes, file: pages and cross-origin redirects send `Origin: null`; an operator
  // may list it on purpose, and it matches as typed (docs/security.md says what it lets in).
  if (entry === 'null') return undefined;
  if (/[,\s]/.test(entry)) return 'expects one origin per value (separate origins with spaces)';
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return SHAPE;
  }
  if (url.protocol === 'file:') return "expects a web origin (file: pages send 'null')";
  if (url.host === '' || url.username !== '' || url.password !== '') return SHAPE;
  // For http(s) and ws(s) `origin` is the browser's serialization. Other schemes a browser
  // sends as origins (chrome-extension://<id>, moz-extension://<uuid>, an app's custom scheme)
  // have an opaque origin in the URL standard; their header is `scheme://host`.
  const serialized = url.origin === 'null' ? `${url.protocol}//${url.host}` : url.origin;
  if (serialized === entry) return undefined;
  // A path, query or fragment is not part of an origin; without them the entry can be respelled.
  return `expects the origin as a browser sends it, '${serialized}'`;
}

const SHAPE = 'expects an origin such as https://app.example.com (scheme://host[:port], no path)';
