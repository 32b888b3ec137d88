/**
 * Who may open the dashboard when `--api-key` is set: a request carrying the key as a bearer token
 * (scripts, curl) or as the password of HTTP Basic credentials (a browser: the 401 below makes it
 * ask once, then it sends them with the page, its files and its event stream without any code in
 * the page). Keys are compared as SHA-256 digests in constant time, as the gateway's own auth does.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** The challenge a 401 carries, so a browser shows its credentials prompt. */
export const BASIC_CHALLENGE = 'Basic realm="Switchyard dashboard", charset="UTF-8"';

/** A check of a request's `Authorization` header; always true without a key. */
export function dashboardAccess(apiKey: string | undefined): (authorization?: string) => boolean {
  if (apiKey === undefined) return () => true;
  const expected = digest(apiKey);
  return (authorization) => {
    const token = credential(authorization);
    return token !== undefined && timingSafeEqual(digest(token), expected);
  };
}

/** The key a header offers: the bearer token, or the password of Basic credentials. */
function credential(authorization: string | undefined): string | undefined {
  const match = authorization === undefined ? null : /^(\w+) +(.+)$/.exec(authorization.trim());
  if (!match) return undefined;
  const [, scheme = '', value = ''] = match;
  if (scheme.toLowerCase() === 'bearer') return value;
  if (scheme.toLowerCase() !== 'basic') return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}
