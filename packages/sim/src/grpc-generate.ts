// A gRPC Generate call: read and validate the request, apply the request faults, plan each
// choice's tokens, pick the PD leg the call plays on this worker (pd-pick.ts, the HTTP surface's
// rules) and hand it all to a session. The gRPC twin of inference.ts.
import * as grpc from '@grpc/grpc-js';
import type { PdLeg } from './pd-leg.js';
import type { SimTokenizer } from './sim-tokenizer.js';
import type { WorkerContext } from './worker-context.js';
import { firstTokenOnly, fixedAnswer, planChoices } from './grpc-answer.js';
import { GrpcGenerateSession } from './grpc-session.js';
import { parseGenerate, rpcPath } from './grpc-wire.js';
import { answersOneToken, pickLeg } from './pd-pick.js';
import { blockKeys } from './prefix-cache.js';

type Msg = Record<string, unknown>;
type Stream = grpc.ServerWritableStream<Msg, Msg>;

/** The worker's registry of live calls, which its Abort RPC looks calls up in. */
export interface LiveCalls {
  add: (s: GrpcGenerateSession) => void;
  /** Passed to the session as its end callback. */
  forget: (s: GrpcGenerateSession) => void;
}

export function handleGenerate(
  w: WorkerContext,
  tokenizer: SimTokenizer,
  live: LiveCalls,
  call: Stream,
): void {
  const { opts, stats, faults } = w;
  const runtime = opts.runtime;
  const req = call.request;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(call.metadata.getMap())) headers[k] = String(v);
  stats.recordPost(rpcPath(runtime, 'Generate'), headers, req);
  const parsed = parseGenerate(runtime, req, tokenizer);
  if (!parsed.ok) {
    call.emit('error', { code: grpc.status.INVALID_ARGUMENT, details: parsed.message });
    return;
  }
  const gen = parsed.value;
  if (gen.bootstrap !== undefined) stats.recordRooms([gen.bootstrap.room]);
  const room = opts.maxContextLength - gen.inputIds.length;
  if (room < 1) {
    call.emit('error', {
      code: grpc.status.INVALID_ARGUMENT,
      details: `input of ${gen.inputIds.length} tokens exceeds max_req_input_len ${opts.maxContextLength - 1}`,
    });
    return;
  }
  if (call.cancelled) {
    stats.aborted++;
    return;
  }
  const decision = faults.decide();
  if (decision === 'error') {
    stats.faultsFired++;
    call.emit('error', faults.grpcStartError());
    return;
  }
  const rules = {
    maxNewTokens: Math.min(gen.maxNewTokens ?? room, room),
    stopTokenIds: new Set(gen.stopTokenIds),
    ignoreEos: gen.ignoreEos,
  };
  let plans = planChoices(
    opts,
    tokenizer,
    gen.inputIds,
    gen.n,
    rules,
    fixedAnswer(opts, tokenizer, gen),
  );
  let pd: PdLeg | undefined;
  if (decision === 'none') {
    const leg = pickLeg(w, {
      id: `grpc-${w.name}-${w.nextRequestNumber()}`,
      promptTokens: gen.inputIds.length,
      finishReason: plans[0]?.finish ?? 'length',
      kvTransferParams: gen.kvTransferParams,
      rooms: gen.bootstrap === undefined ? undefined : [gen.bootstrap.room],
      bootstrap: gen.bootstrap,
    });
    if (typeof leg === 'string') {
      call.emit('error', { code: grpc.status.INVALID_ARGUMENT, details: leg });
      return;
    }
    if (leg !== undefined && gen.bootstrap !== undefined && gen.n > 1) {
      // One room carries one sequence's KV: n samples on it would pre-allocate it n times.
      call.emit('error', {
        code: grpc.status.INVALID_ARGUMENT,
        details: `n=${gen.n} samples cannot share bootstrap room ${gen.bootstrap.room}; send one request per sample`,
      });
      return;
    }
    pd = leg;
    if (answersOneToken(pd)) plans = plans.map(firstTokenOnly);
  }
  const malformed = decision === 'none' && faults.takeMalformed();
  const drop = malformed ? 'malformed' : decision === 'none' ? faults.takeDrop() : undefined;
  const cache = opts.engine === 'realistic' && opts.prefixCache;
  const prompt = cache
    ? { tokens: gen.inputIds.length, keys: blockKeys(gen.inputIds, opts.blockSize) }
    : undefined;
  const session = new GrpcGenerateSession(
    call,
    {
      runtime,
      engine: w.engine,
      stats,
      failAfter: drop,
      streamError: () => faults.grpcStreamError(),
      onEnd: live.forget,
      pd,
      closing: w.isClosing,
      ignoresCancel: faults.ignoresCancel(),
      stallAfter: decision === 'none' && drop === undefined ? faults.takeStall() : undefined,
    },
    gen,
    plans,
    prompt,
  );
  live.add(session);
  if (decision === 'hang') {
    stats.faultsFired++;
    session.hold();
  } else {
    session.run();
  }
}
