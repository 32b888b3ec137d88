/**
 * The routing-key rule, shared by the edge's hint parsing (`routing/routing-headers.ts`) and by
 * `consistent_hashing`, which reads `x-smg-routing-key` from the headers it is given. It lives
 * here, below routing, so a policy need not import upward.
 */
import { isUtf8 } from 'node:buffer';

export const MAX_ROUTING_KEY_BYTES = 128;

/**
 * A routing-key value if SMG would use it: non-empty, at most 128 bytes, valid UTF-8. Node
 * decodes header bytes as latin1, one char per byte, so `latin1` recovers the bytes sent.
 */
export function usableRoutingKey(value: string | undefined): string | undefined {
  if (value === undefined || value.length === 0 || value.length > MAX_ROUTING_KEY_BYTES)
    return undefined;
  return isUtf8(Buffer.from(value, 'latin1')) ? value : undefined;
}
