/**
 * Bootstrap rooms for gRPC PD. The rooms ride in typed proto fields: SGLang's
 * `DisaggregatedParams.bootstrap_room` is an int32, so its rooms are drawn from [0, 2^31-1);
 * TokenSpeed's `KvBootstrapInfo.bootstrap_room` is an int64, so its rooms keep 63 bits, in
 * [0, 2^63-1). Both come from the same uniform 63-bit draw the HTTP path uses.
 */
import { mintRoom } from '../bootstrap.js';

const SGLANG_ROOMS = 2n ** 31n - 1n;
const TOKENSPEED_ROOMS = 2n ** 63n - 1n;

export function mintGrpcRoom(runtime: string): bigint {
  return mintRoom() % (runtime === 'sglang' ? SGLANG_ROOMS : TOKENSPEED_ROOMS);
}
