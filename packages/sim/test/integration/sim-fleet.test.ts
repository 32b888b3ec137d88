// Many workers in one process: ephemeral or consecutive ports, shared seed, cleanup on failure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SimWorker } from '../../src/index.js';
import { startSimFleet, startSimWorker } from '../../src/index.js';
import { onConsecutivePorts } from '../helpers/ports.js';

async function chatText(w: SimWorker): Promise<string> {
  const res = await fetch(`${w.url}/v1/chat/completions`, {
    method: 'POST',
    body: JSON.stringify({ messages: [{ role: 'user', content: 'same?' }], max_tokens: 4 }),
  });
  const body = (await res.json()) as { choices: { message: { content: string } }[] };
  return body.choices[0]?.message.content ?? '';
}

void describe('startSimFleet', () => {
  void it('starts ephemeral workers with distinct ports and names that answer alike', async () => {
    const fleet = await startSimFleet(3, { runtime: 'vllm', ttftMs: 1, itlMs: 1, seed: 4 });
    try {
      assert.equal(new Set(fleet.map((w) => w.port)).size, 3);
      assert.equal(new Set(fleet.map((w) => w.name)).size, 3);
      const texts = await Promise.all(fleet.map(chatText));
      assert.equal(new Set(texts).size, 1, 'same seed, same prompt → same text on every worker');
    } finally {
      await Promise.all(fleet.map((w) => w.close()));
    }
  });

  void it('starts workers on consecutive ports from basePort, suffixing a given name', async () => {
    let base = 0;
    const fleet = await onConsecutivePorts(2, (b) => {
      base = b;
      return startSimFleet(2, { basePort: b, workerName: 'w' });
    });
    try {
      const [a, b] = fleet;
      assert.deepEqual([a?.port, b?.port], [base, base + 1]);
      assert.deepEqual(
        fleet.map((w) => w.name),
        ['w-0', 'w-1'],
      );
      assert.equal(a?.url, `http://127.0.0.1:${a?.port}`);
    } finally {
      await Promise.all(fleet.map((w) => w.close()));
    }
  });

  void it('closes the workers it started when a later one cannot bind', async () => {
    const blocker = await startSimWorker();
    const base = blocker.port - 1;
    try {
      await assert.rejects(startSimFleet(2, { basePort: base }), /EADDRINUSE|EACCES/);
      // If the first worker had been left open, binding its port again would fail.
      const again = await startSimWorker({ port: base }).catch(() => undefined);
      await again?.close();
    } finally {
      await blocker.close();
    }
  });

  void it('rejects a bad count', async () => {
    await assert.rejects(startSimFleet(0), RangeError);
  });
});
