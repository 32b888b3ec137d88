// HTTP client a decode uses to reach its prefill peer: the SGLang bootstrap join (a long poll that
// answers when the KV has landed) and the vLLM NIXL/Mooncake pulls. Aborting a call destroys its
// connection, which is exactly what tells the prefill side that the decode left.
import { Agent, request } from 'node:http';

export interface KvResponse {
  status: number;
  body: unknown;
}

export interface PendingCall {
  /** Rejects on a transport error, and after abort() (callers ignore that rejection). */
  readonly result: Promise<KvResponse>;
  abort(): void;
}

export class KvClient {
  // One keep-alive pool per worker; long polls each hold a socket, so no socket cap.
  private readonly agent = new Agent({ keepAlive: true });

  /** POSTs `body` (raw JSON text, so room digits go out exactly as received). */
  post(url: string, body: string): PendingCall {
    const req = request(url, {
      method: 'POST',
      agent: this.agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const result = new Promise<KvResponse>((resolve, reject) => {
      req.once('error', reject);
      req.once('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.once('error', reject);
        res.once('end', () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      });
    });
    req.end(body);
    return { result, abort: () => req.destroy() };
  }

  close(): void {
    this.agent.destroy();
  }
}
