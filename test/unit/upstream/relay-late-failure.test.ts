// A worker body that fails before the relay starts listening (a PD decode that dies while the
// gateway waits for its prefill) must still be answered: the client gets an error, not silence.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { request } from 'undici';
import { relayResponse } from '../../../src/upstream/forward.js';
import { midStreamGatewayError } from '../../../src/upstream/errors.js';
import { relaySseRewritten } from '../../../src/upstream/sse-rewrite.js';

const servers: Server[] = [];
after(() =>
  servers.forEach((s) => {
    s.closeAllConnections();
    s.close();
  }),
);

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An upstream that sends an SSE head and one event, then drops the connection. */
async function dyingUpstream(): Promise<string> {
  return listen(
    createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"n":1}\n\n', () => setTimeout(() => res.socket?.destroy(), 10));
    }),
  );
}

for (const [name, relay] of [
  ['relayResponse', 'plain'],
  ['relaySseRewritten', 'rewrite'],
] as const) {
  test(`${name}: a body that already failed is answered with an error`, async () => {
    const upstreamUrl = await dyingUpstream();
    const front = await listen(
      createServer((_req, res) => {
        void (async () => {
          const upstream = await request(upstreamUrl);
          // Let the upstream die while nobody reads the body.
          await new Promise((r) => setTimeout(r, 150));
          assert.ok(upstream.body.destroyed, 'the body failed before the relay');
          const midStreamError = (cause: unknown) => midStreamGatewayError(cause, upstreamUrl);
          if (relay === 'plain')
            await relayResponse(upstream, res, { headers: {}, midStreamError });
          else await relaySseRewritten(upstream, res, {}, (e) => e, midStreamError);
        })();
      }),
    );
    const res = await fetch(front, { signal: AbortSignal.timeout(5000) });
    assert.equal(res.status, 502);
    assert.equal(res.headers.get('x-smg-error-code'), 'upstream_stream_failed');
  });
}
