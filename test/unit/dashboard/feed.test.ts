import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '@switchyard/kit';
import { DashboardFeed } from '../../../src/dashboard/feed.js';
import {
  FRAME_INTERVAL_MS,
  HISTORY_FRAMES,
  type DashboardFrame,
} from '../../../src/dashboard/frame.js';

/** Lets the render promise and its callback run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function feedOver(render: () => Promise<string>) {
  const clock = new ManualClock();
  let wall = 1_000_000;
  const errors: unknown[] = [];
  const feed = new DashboardFeed({
    render,
    clock,
    wallClock: () => wall,
    onError: (err) => errors.push(err),
  });
  const tick = async (): Promise<void> => {
    wall += FRAME_INTERVAL_MS;
    clock.advance(FRAME_INTERVAL_MS);
    await settle();
  };
  return { feed, errors, tick };
}

test('samples only while watched, and forgets its history once it stops', async () => {
  let renders = 0;
  const { feed, tick } = feedOver(async () => {
    renders++;
    return 'smg_worker_health{worker="http://a:1"} 1\n';
  });
  await tick();
  assert.equal(renders, 0, 'nobody watching: no render');

  const received: DashboardFrame[] = [];
  const unsubscribe = feed.subscribe((frame, json) => {
    assert.deepEqual(JSON.parse(json), frame);
    received.push(frame);
  });
  await settle();
  await tick();
  await tick();
  assert.equal(received.length, 3);
  assert.equal(received[0]?.workers[0]?.worker, 'http://a:1');
  assert.deepEqual(JSON.parse(feed.historyJson()), received);

  unsubscribe();
  // Still sampling for a late page until the history would be stale, then nothing at all.
  for (let i = 0; i < HISTORY_FRAMES + 2; i++) await tick();
  const stoppedAt = renders;
  assert.deepEqual(feed.history(), []);
  await tick();
  assert.equal(renders, stoppedAt);
  feed.close();
});

test('a failed render or a frame that cannot be built is reported, and sampling goes on', async () => {
  let answer: () => Promise<string> = () => Promise.reject(new Error('primary busy'));
  const { feed, errors, tick } = feedOver(() => answer());
  const received: DashboardFrame[] = [];
  feed.subscribe((frame) => {
    if (received.push(frame) === 1) throw new Error('listener broke');
  });
  await settle();
  assert.equal(errors.length, 1);
  answer = async () => 'smg_pd_prefill_admission_queued 3\n';
  await tick();
  assert.equal(received.length, 1);
  assert.match(String(errors[1]), /listener broke/);
  await tick();
  assert.equal(received.length, 2);
  assert.equal(received[1]?.prefill.queued, 3);
  feed.close();
});
