// The one writer, on a real loopback server: every way an answer can end (written whole, client
// gone before the head or during the body, worker failing before or after the first byte, a
// slow client) ends with the answer's leases released exactly once and the body source told.
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import type { AnswerEnd } from '../../../src/routing/answer.js';
import { writeAnswer } from '../../../src/server/write-answer.js';
import { LeaseLog, ManualBody, testAnswer } from '../../helpers/answers.js';
import { waitFor } from '../../helpers/wait-for.js';

const servers: Server[] = [];
after(() =>
  servers.forEach((s) => {
    s.closeAllConnections();
    s.close();
  }),
);

/** A server that hands each response to `onResponse` and records how the writer ended it. */
async function serve(onResponse: (res: ServerResponse) => Promise<AnswerEnd>): Promise<{
  url: string;
  port: number;
  ended: Promise<AnswerEnd>;
}> {
  let resolveEnded!: (end: AnswerEnd) => void;
  const ended = new Promise<AnswerEnd>((r) => (resolveEnded = r));
  const server = createServer((_req, res) => {
    void onResponse(res).then(resolveEnded);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, ended };
}

test('written whole: the client gets head and body, leases end "complete" once', async () => {
  const leases = new LeaseLog();
  const answer = testAnswer({ leases });
  const srv = await serve(async (res) => {
    const done = writeAnswer(res, answer);
    answer.body.send('{"a":');
    await waitFor(() => res.headersSent, 'the head and first chunk to be written');
    answer.body.send('1}');
    answer.body.finish();
    return done;
  });
  const res = await fetch(srv.url);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), '{"a":1}');
  assert.equal(await srv.ended, 'complete');
  assert.deepEqual(leases.ends, ['complete']);
});

test('client gone before the head: the body is cancelled and leases end "client_closed"', async () => {
  const leases = new LeaseLog();
  const answer = testAnswer({ leases });
  const srv = await serve(async (res) => {
    res.destroy();
    return writeAnswer(res, answer);
  });
  await fetch(srv.url).catch(() => undefined);
  assert.equal(await srv.ended, 'client_closed');
  assert.ok(answer.body.cancelledWith);
  assert.deepEqual(leases.ends, ['client_closed']);
});

test('client gone during the body: the body is cancelled and leases end "client_closed"', async () => {
  const leases = new LeaseLog();
  const answer = testAnswer({ leases, eventStream: true });
  const ac = new AbortController();
  const srv = await serve(async (res) => {
    const done = writeAnswer(res, answer);
    answer.body.send('data: 1\n\n');
    return done;
  });
  const res = await fetch(srv.url, { signal: ac.signal });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  ac.abort();
  assert.equal(await srv.ended, 'client_closed');
  assert.ok(answer.body.cancelledWith, 'the worker side was told to stop');
  assert.deepEqual(leases.ends, ['client_closed']);
});

test('a stream whose worker dies mid-body ends with an SSE error event, leases "upstream_failed"', async () => {
  const leases = new LeaseLog();
  const answer = testAnswer({ leases, eventStream: true });
  const srv = await serve(async (res) => {
    const done = writeAnswer(res, answer);
    answer.body.send('data: 1\n\n');
    await waitFor(() => res.headersSent, 'the head and first event to be written');
    answer.body.break(new Error('socket hang up'));
    return done;
  });
  const res = await fetch(srv.url);
  assert.equal(res.status, 200);
  const text = await res.text();
  assert.match(text, /^data: 1\n\ndata: \{"error":\{.*"code":"upstream_stream_failed"/s);
  assert.equal(await srv.ended, 'upstream_failed');
  assert.deepEqual(leases.ends, ['upstream_failed']);
});

test('a JSON body whose worker dies after the first byte is cut, not completed', async () => {
  const leases = new LeaseLog();
  const answer = testAnswer({ leases });
  const srv = await serve(async (res) => {
    const done = writeAnswer(res, answer);
    answer.body.send('{"partial":');
    await waitFor(() => res.headersSent, 'the head and first byte to be written');
    answer.body.break(new Error('socket hang up'));
    return done;
  });
  const res = await fetch(srv.url);
  await assert.rejects(res.text(), 'a truncated JSON body must not read as a success');
  assert.equal(await srv.ended, 'upstream_failed');
  assert.deepEqual(leases.ends, ['upstream_failed']);
});

test('a JSON body whose worker dies before its first byte becomes a JSON error with its own status', async () => {
  const leases = new LeaseLog();
  const answer = testAnswer({ leases });
  const srv = await serve(async (res) => {
    const done = writeAnswer(res, answer);
    // The writer waits for the first byte: nothing may be on the wire yet.
    await new Promise((r) => setImmediate(r));
    assert.equal(res.headersSent, false, 'no head before the first byte');
    answer.body.break(new Error('socket hang up'));
    return done;
  });
  const res = await fetch(srv.url);
  assert.equal(res.status, 502);
  assert.equal(res.headers.get('x-smg-error-code'), 'upstream_stream_failed');
  assert.match(await res.text(), /"code":"upstream_stream_failed"/);
  assert.equal(await srv.ended, 'upstream_failed');
  assert.deepEqual(leases.ends, ['upstream_failed']);
});

test('a slow client pauses the body until it drains; everything arrives, leases end once', async () => {
  const leases = new LeaseLog();
  const answer = testAnswer({ leases, eventStream: true });
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const total = 64;
  let pausedAt: number | undefined;
  const srv = await serve(async (res) => {
    const done = writeAnswer(res, answer);
    let sent = 0;
    const pump = (): void => {
      while (sent < total) {
        sent += 1;
        if (!answer.body.send(chunk)) {
          pausedAt ??= sent;
          // The writer resumes the body on 'drain'; keep sending only then.
          const resumed = answer.body.resumed;
          const wait = setInterval(() => {
            if (answer.body.resumed > resumed) {
              clearInterval(wait);
              pump();
            }
          }, 1);
          return;
        }
      }
      answer.body.finish();
    };
    pump();
    return done;
  });
  // A raw socket that reads nothing for a while, so the gateway's writes back up.
  const socket = connect(srv.port, '127.0.0.1');
  socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
  socket.pause();
  await waitFor(() => pausedAt !== undefined, 'the writer to ask the body to pause');
  assert.ok(pausedAt !== undefined && pausedAt < total, 'paused before the whole body was sent');
  assert.deepEqual(leases.ends, [], 'nothing is released while the answer is still being written');
  let received = 0;
  socket.on('data', (b: Buffer) => {
    received += b.length;
  });
  socket.resume();
  assert.equal(await srv.ended, 'complete');
  assert.ok(answer.body.resumed > 0);
  assert.deepEqual(leases.ends, ['complete']);
  socket.destroy();
  assert.ok(received > 0);
});

test('a body that had already failed before writing starts is a JSON error, even for a stream', async () => {
  const leases = new LeaseLog();
  const body = new ManualBody();
  body.send('data: 1\n\n');
  body.break(new Error('worker died while the answer waited'));
  const answer = testAnswer({ leases, body, eventStream: true });
  const srv = await serve((res) => writeAnswer(res, answer));
  const res = await fetch(srv.url);
  assert.equal(res.status, 502);
  await res.text();
  assert.equal(await srv.ended, 'upstream_failed');
  assert.deepEqual(leases.ends, ['upstream_failed']);
});
