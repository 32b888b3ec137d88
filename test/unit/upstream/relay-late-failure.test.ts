// A worker body that fails before the writer starts (a PD decode that dies while the gateway
// waits for its prefill) must still be answered: the client gets an error, not silence, and not
// a 200 head with an error after it.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { Pool } from 'undici';
import { systemClock } from '@switchyard/kit';
import { midStreamGatewayError } from '../../../src/upstream/errors.js';
import { mapSseEvents } from '../../../src/upstream/sse-events.js';
import { callUpstream } from '../../../src/upstream/upstream-call.js';
import { writeAnswer } from '../../../src/server/write-answer.js';
import type { AnswerEnd } from '../../../src/routing/answer.js';
import { LeaseLog } from '../../helpers/answers.js';

const servers: Server[] = [];
const pools: Pool[] = [];
after(async () => {
  await Promise.all(pools.map((p) => p.destroy()));
  servers.forEach((s) => {
    s.closeAllConnections();
    s.close();
  });
});

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

for (const mode of ['plain', 'rewritten'] as const) {
  test(`${mode} body: a body that already failed is answered with an error and its lease released once`, async () => {
    const upstreamUrl = await dyingUpstream();
    const pool = new Pool(upstreamUrl);
    pools.push(pool);
    const leases = new LeaseLog();
    // The handler's work, awaited by the test so that its failures fail the test.
    let handled: Promise<{ failedBeforeWrite: Error | undefined; ended: AnswerEnd }> | undefined;
    const front = await listen(
      createServer((_req, res) => {
        handled = (async () => {
          const call = callUpstream(
            pool,
            { method: 'GET', path: '/', headers: {} },
            new AbortController().signal,
            5000,
            systemClock,
          );
          const head = await call.head;
          // Let the upstream die while nobody reads the body.
          await new Promise<Error>((resolve) => head.body.onFailure(resolve));
          const failedBeforeWrite = head.body.failure;
          const body = mode === 'plain' ? head.body : mapSseEvents(head.body, (e) => e);
          const ended = await writeAnswer(res, {
            status: head.status,
            headers: { 'content-type': 'text/event-stream' },
            body,
            eventStream: true,
            leases: [leases.lease()],
            midStreamError: (cause) => midStreamGatewayError(cause, upstreamUrl),
          });
          return { failedBeforeWrite, ended };
        })();
      }),
    );
    const res = await fetch(front, { signal: AbortSignal.timeout(5000) });
    assert.ok(handled, 'the front server handled the request');
    const { failedBeforeWrite, ended } = await handled;
    assert.ok(failedBeforeWrite, 'the body had failed before the writer started');
    assert.equal(res.status, 502);
    assert.equal(res.headers.get('x-smg-error-code'), 'upstream_stream_failed');
    await res.text();
    assert.equal(ended, 'upstream_failed');
    assert.deepEqual(leases.ends, ['upstream_failed']);
  });
}
