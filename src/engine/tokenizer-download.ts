/**
 * Collects a `GetTokenizer` stream into one bundle. The engine sends a ZIP in slices and the
 * SHA-256 of the whole file on the last slice only. The checks here are about the transfer
 * (size, presence); verifying the digest and the ZIP is the tokenizer registry's job.
 */
import type { ClientReadableStream, ServiceError } from '@grpc/grpc-js';
import { EngineCallError, type TokenizerBundle } from './types.js';

/** SMG refuses a tokenizer bundle larger than this. */
export const MAX_TOKENIZER_BUNDLE_BYTES = 200 * 1024 * 1024;

interface WireTokenizerChunk {
  data?: Buffer;
  sha256?: string;
}

export function collectTokenizerBundle(
  stream: ClientReadableStream<unknown>,
  maxBytes = MAX_TOKENIZER_BUNDLE_BYTES,
): Promise<TokenizerBundle> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let total = 0;
    let chunks = 0;
    let lastSha = '';
    let failed = false;
    const fail = (err: Error): void => {
      if (failed) return;
      failed = true;
      stream.cancel();
      reject(err);
    };
    stream.on('data', (message: WireTokenizerChunk) => {
      if (failed) return;
      chunks += 1;
      const data = message.data ?? Buffer.alloc(0);
      total += data.length;
      if (total > maxBytes) {
        fail(new Error(`tokenizer bundle exceeds ${maxBytes} bytes`));
        return;
      }
      parts.push(data);
      // Only the last chunk's digest counts; earlier chunks carry an empty one.
      lastSha = message.sha256 ?? '';
    });
    stream.on('error', (err: ServiceError) => {
      if (!failed) fail(new EngineCallError(err.code, err.details, chunks === 0));
    });
    stream.on('end', () => {
      if (failed) return;
      if (chunks === 0) fail(new Error('engine sent no tokenizer chunk'));
      else if (total === 0) fail(new Error('engine sent an empty tokenizer bundle'));
      else if (lastSha === '') fail(new Error('last tokenizer chunk carries no sha256'));
      else resolve({ data: Buffer.concat(parts, total), sha256: lastSha });
    });
  });
}
