/**
 * The channel profile SMG dials engines with (`grpc_client/src/channel.rs`), in grpc-js terms,
 * and the URL → target mapping (`grpc://` plain, `grpcs://` TLS).
 */
import * as grpc from '@grpc/grpc-js';

const MIB = 1024 * 1024;

/**
 * HTTP/2 pings every 30 s with a 10 s timeout, also while idle, so a dead engine behind a
 * silent network path is noticed between requests. Message limits are raised well above
 * grpc-js's 4 MiB receive default: multimodal requests and tokenizer chunks are large.
 */
export const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.max_receive_message_length': 256 * MIB,
  'grpc.max_send_message_length': 256 * MIB,
};

/**
 * SMG's connect timeout. grpc-js has no channel option for it, so a `Generate` whose channel
 * has not connected by then fails as UNAVAILABLE (see generate-call.ts); unary calls are bounded
 * by their own deadlines.
 */
export const CONNECT_TIMEOUT_MS = 10_000;

export interface EngineTarget {
  /** `host:port`, as grpc-js dials it. */
  target: string;
  secure: boolean;
}

/** `grpc://host:port` or `grpcs://host:port` → the dial target; anything else is refused. */
export function parseEngineUrl(url: string): EngineTarget {
  const m = /^(grpcs?):\/\/([^/?#]+)\/?$/i.exec(url.trim());
  if (m === null) throw new TypeError(`not a grpc:// or grpcs:// URL: ${url}`);
  return { target: m[2] as string, secure: (m[1] as string).toLowerCase() === 'grpcs' };
}

export function channelCredentials(secure: boolean): grpc.ChannelCredentials {
  return secure ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
}
