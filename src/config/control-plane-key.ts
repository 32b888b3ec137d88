/**
 * The `--control-plane-api-keys` entry format. It lives with the config, which parses it once at
 * startup; `server/auth.ts` keeps only the digests.
 */

export type ControlPlaneRole = 'admin' | 'user';

/** One `--control-plane-api-keys id:name:role:key` entry. */
export interface ControlPlaneKey {
  readonly id: string;
  readonly name: string;
  readonly role: ControlPlaneRole;
  readonly key: string;
}

/**
 * Parses `id:name:role:key` (SMG's format). Only the first three colons split, so the key may
 * contain colons; the role is `admin` or `user`, any case. Returns undefined when malformed.
 */
export function parseControlPlaneKey(entry: string): ControlPlaneKey | undefined {
  const parts = entry.split(':');
  if (parts.length < 4) return undefined;
  const [id = '', name = '', role = ''] = parts;
  const key = parts.slice(3).join(':');
  const lowered = role.toLowerCase();
  if (id === '' || key === '' || (lowered !== 'admin' && lowered !== 'user')) return undefined;
  return { id, name, role: lowered, key };
}
