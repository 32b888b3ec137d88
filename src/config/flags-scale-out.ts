/**
 * Scale-out flags (Switchyard-only): where the admission state lives when more than one gateway
 * process admits against the same engines, and how many processes `launch` runs on this host.
 */
import type { CoreFlag } from './core-flag.js';

export const SCALE_OUT_FLAGS: readonly CoreFlag[] = [
  {
    name: 'workers',
    key: 'workers',
    kind: 'int',
    default: 1,
    help: 'Gateway processes on this host sharing the listening port; their decode claims and prefill slots are held by the primary process, so limits stay exact (Switchyard-only)',
    status: 'switchyard-only',
  },
  {
    name: 'admission-store',
    key: 'admissionStore',
    kind: 'string',
    metavar: '<redis://host:port[/db]>',
    help: 'Share decode claims and prefill slots with every replica through this Redis (Switchyard-only; default: this host only)',
    status: 'switchyard-only',
  },
  {
    name: 'admission-lease-secs',
    key: 'admissionLeaseSecs',
    kind: 'int',
    default: 30,
    help: "Redis store: a claim lapses this long after its replica stopped renewing it (a crashed replica's claims free within this time) (Switchyard-only)",
    status: 'switchyard-only',
  },
  {
    name: 'admission-replicas',
    key: 'admissionReplicas',
    kind: 'int',
    help: 'Redis store: while Redis is unreachable each replica admits window / N (default: the full window, with a warning) (Switchyard-only)',
    status: 'switchyard-only',
  },
];
