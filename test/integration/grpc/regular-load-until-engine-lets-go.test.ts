// A regular gRPC worker's load counts a request until the engine has let go of it (its stream
// ended, or it answered the Abort), as a PD leg's slot does: the load-based policies must not see
// an idle worker while the engine still runs the request. The engine here behaves as a Python
// servicer that does not pass a cancel on (`grpcIgnoreCancel`) and answers Abort 2 s late.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { waitFor } from '../../helpers/gateway.js';
import { startQwenFleet, type QwenFleet } from '../../helpers/grpc.js';
import { postJson } from '../../helpers/http.js';

const ABORT_DELAY_MS = 2_000;
const fleets: QwenFleet[] = [];
after(async () => {
  for (const f of fleets) await f.close();
});

async function fleet(): Promise<QwenFleet> {
  const f = await startQwenFleet([
    '--request-timeout-secs',
    '1',
    '--disable-retries',
    '--disable-circuit-breaker',
  ]);
  fleets.push(f);
  return f;
}

const loadOf = (f: QwenFleet): number => f.gateway.internals.registry.all()[0]?.load ?? -1;

describe("a regular gRPC worker's load lasts until the engine lets go", () => {
  it('a call that never started: held after the 504 until the Abort is answered', async () => {
    const f = await fleet();
    f.engine.setFaults({ hang: true, grpcIgnoreCancel: true, abortDelayMs: ABORT_DELAY_MS });
    const res = await postJson(`${f.gateway.url}/v1/chat/completions`, {
      model: 'qwen3',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 4,
    });
    assert.equal(res.status, 504, await res.clone().text());
    await res.arrayBuffer();
    assert.equal(loadOf(f), 1, 'the engine still holds the request');
    await waitFor(() => loadOf(f) === 0, 'the load given back once the Abort is answered', 5_000);
    assert.equal(f.engine.grpc?.aborts.length, 1);
  });

  it('a streamed call that stalls: held after its error event until the Abort is answered', async () => {
    const f = await fleet();
    f.engine.setFaults({
      grpcStallAfterTokens: 1,
      grpcIgnoreCancel: true,
      abortDelayMs: ABORT_DELAY_MS,
    });
    const res = await postJson(`${f.gateway.url}/v1/chat/completions`, {
      model: 'qwen3',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 8,
      stream: true,
    });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /request-timeout-secs/, 'the stream ends with the deadline error');
    assert.equal(loadOf(f), 1, 'the engine still holds the request');
    await waitFor(() => loadOf(f) === 0, 'the load given back once the Abort is answered', 5_000);
  });
});
