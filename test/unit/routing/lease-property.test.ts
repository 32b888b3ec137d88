// Property: whatever mix of retryable and final answers, thrown errors, client aborts and worker
// failures a request meets, every lease that rode on an answer is released exactly once. The
// retry decorator and the one writer are run for real (the writer on a loopback server); the
// scenarios come from a seeded generator, so a failure names a reproducible seed.
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import type { Answer } from '../../../src/routing/answer.js';
import { withRetry } from '../../../src/routing/retry.js';
import { writeAnswer } from '../../../src/server/write-answer.js';
import { seededRandom, type Random } from '@switchyard/kit';
import { LeaseLog, testAnswer } from '../../helpers/answers.js';

type AttemptKind = 'final_answer' | 'retryable_answer' | 'retryable_error' | 'final_error';
type Ending =
  | 'complete'
  | 'fail_before_first_byte'
  | 'fail_mid_body'
  | 'client_abort_mid_body'
  | 'client_gone_before_head';

interface Scenario {
  seed: number;
  maxAttempts: number;
  attempts: AttemptKind[];
  abortDuringBackoff: boolean;
  eventStream: boolean;
  ending: Ending;
}

function pick<T>(r: Random, items: readonly T[]): T {
  return items[Math.floor(r.next() * items.length)] as T;
}

function scenario(seed: number): Scenario {
  const r = seededRandom(seed);
  const maxAttempts = 1 + Math.floor(r.next() * 4);
  const kinds: AttemptKind[] = [
    'final_answer',
    'retryable_answer',
    'retryable_error',
    'final_error',
  ];
  return {
    seed,
    maxAttempts,
    attempts: Array.from({ length: maxAttempts }, () => pick(r, kinds)),
    abortDuringBackoff: r.next() < 0.15,
    eventStream: r.next() < 0.5,
    ending: pick(r, [
      'complete',
      'fail_before_first_byte',
      'fail_mid_body',
      'client_abort_mid_body',
      'client_gone_before_head',
    ] as const),
  };
}

let current: ((res: ServerResponse) => void) | undefined;
const server = createServer((_req, res) => current?.(res));
let url = '';
before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

async function run(s: Scenario): Promise<LeaseLog[]> {
  const logs: LeaseLog[] = [];
  const client = new AbortController();
  const answers: ReturnType<typeof testAnswer>[] = [];
  let i = 0;
  const attempt = async (): Promise<Answer> => {
    const kind = s.attempts[i++] ?? 'final_error';
    if (s.abortDuringBackoff && i === 1) setImmediate(() => client.abort(new Error('client left')));
    if (kind === 'retryable_error') throw new GatewayError('call_upstream_connection_failed', 'x');
    if (kind === 'final_error')
      throw new GatewayError('no_available_workers', 'x', { retryable: false });
    const leases = new LeaseLog();
    logs.push(leases);
    const answer = testAnswer({
      status: kind === 'final_answer' ? 200 : 503,
      leases,
      eventStream: s.eventStream,
    });
    answers.push(answer);
    return answer;
  };
  let answer: ReturnType<typeof testAnswer> | undefined;
  try {
    answer = (await withRetry(
      attempt,
      {
        maxAttempts: s.maxAttempts,
        initialBackoffMs: s.abortDuringBackoff ? 20 : 0,
        maxBackoffMs: 20,
        multiplier: 1,
        jitter: 0,
      },
      { random: seededRandom(s.seed), signal: client.signal, hooks: NO_HOOKS },
    )) as ReturnType<typeof testAnswer>;
  } catch {
    return logs; // nothing to write: every answer seen so far was discarded
  }
  let arrived!: () => void;
  const arrival = new Promise<void>((r) => (arrived = r));
  const written = new Promise<void>((resolve) => {
    current = (res) => {
      arrived();
      if (s.ending === 'client_gone_before_head') res.destroy();
      void writeAnswer(res, answer as Answer).then(() => resolve());
    };
  });
  const ac = new AbortController();
  const fetched = fetch(url, { signal: ac.signal }).then(
    (res) => res.text(),
    () => undefined,
  );
  // Drive the body only once the writer has the response (the request may need a connection).
  await arrival;
  await tick();
  const body = answer.body;
  switch (s.ending) {
    case 'complete':
      body.send('data: 1\n\n');
      body.finish();
      break;
    case 'fail_before_first_byte':
      body.break(new Error('worker died'));
      break;
    case 'fail_mid_body':
      body.send('data: 1\n\n');
      await tick();
      body.break(new Error('worker died'));
      break;
    case 'client_abort_mid_body':
      body.send('data: 1\n\n');
      await tick();
      ac.abort();
      break;
    case 'client_gone_before_head':
      break;
  }
  await fetched.catch(() => undefined);
  await written;
  return logs;
}

const NO_HOOKS = { onRetry: () => undefined, onExhausted: () => undefined };

test('every answer lease is released exactly once, over 150 seeded scenarios', async () => {
  for (let seed = 1; seed <= 150; seed++) {
    const s = scenario(seed);
    const logs = await run(s);
    for (const [n, log] of logs.entries())
      assert.equal(
        log.ends.length,
        1,
        `seed ${seed} (${JSON.stringify(s)}): answer ${n} released ${log.ends.length} times: ${log.ends.join(',')}`,
      );
  }
});
