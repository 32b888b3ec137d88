// vLLM PD over gRPC: kv_transfer_params_json in, the prefill's handoff out in its complete's
// kv_transfer_params_json; the decode reads the KV from the prefill's HTTP bootstrap listener
// (NIXL pull, or Mooncake's /query on the router-minted transfer id) or recomputes the prompt.
// /sim/stats tells a real transfer from a silent recompute, as on the HTTP surface.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import type { SimWorker, SimWorkerOptions } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import type { EngineClient, StreamResult } from '../helpers/grpc-client.js';
import { collect, engineClient, generateRequest, parts, unary } from '../helpers/grpc-client.js';

type Msg = Record<string, unknown>;
/** 40 prompt tokens: two full 16-token KV blocks. */
const IDS = Array.from({ length: 40 }, (_, i) => 100 + i);

interface Worker {
  w: SimWorker;
  c: EngineClient;
}

const started: Worker[] = [];

async function start(opts: SimWorkerOptions): Promise<Worker> {
  const w = await startSimWorker({
    protocol: 'grpc',
    runtime: 'vllm',
    engine: 'realistic',
    timeScale: 0.01,
    ...opts,
  });
  const worker = { w, c: engineClient('vllm', w.url) };
  started.push(worker);
  return worker;
}

function request(id: string, max: number, params: unknown): Msg {
  const req = generateRequest('vllm', { id, ids: IDS, max, ignoreEos: true, stream: false });
  if (params !== undefined) req['kv_transfer_params_json'] = JSON.stringify(params);
  return { ...req, data_parallel_rank: 0 };
}

function complete(r: StreamResult): Msg {
  assert.equal(r.code, 0, r.details);
  const done = parts(r.messages).completes;
  assert.equal(done.length, 1);
  return done[0] ?? {};
}

void describe('vLLM PD over gRPC', () => {
  after(async () => {
    for (const { w, c } of started) {
      c.close();
      await w.close();
    }
  });

  void describe('NIXL', () => {
    let prefill: Worker;
    let decode: Worker;
    before(async () => {
      prefill = await start({ kvConnector: 'NixlConnector', kvEngineId: 'engine-p' });
      decode = await start({ kvConnector: 'NixlConnector', kvEngineId: 'engine-d' });
    });

    void it('the prefill returns its handoff and the decode pulls the KV', async () => {
      assert.ok((prefill.w.bootstrapPort ?? 0) > 0, 'KV reads need an HTTP listener');
      const p = complete(
        await collect(
          prefill.c,
          'Generate',
          request('p-1', 1, { do_remote_decode: true, do_remote_prefill: false }),
        ),
      );
      assert.equal(p['finish_reason'], 'length');
      assert.equal((p['output_ids'] as number[]).length, 1);
      const json = p['kv_transfer_params_json'];
      assert.equal(typeof json, 'string');
      const params = JSON.parse(json as string) as Msg;
      assert.equal(params['do_remote_prefill'], true);
      assert.equal(params['do_remote_decode'], false);
      assert.equal(params['remote_engine_id'], 'engine-p');
      assert.equal(params['remote_host'], '127.0.0.1');
      assert.equal(params['remote_port'], prefill.w.bootstrapPort);
      assert.equal((params['remote_block_ids'] as number[]).length, 2);
      assert.equal(prefill.w.stats().kvPinned, 1);

      const d = complete(await collect(decode.c, 'Generate', request('d-1', 5, params)));
      assert.equal(d['completion_tokens'], 5);
      const ds = decode.w.stats();
      assert.deepEqual([ds.kvTransfers, ds.promptsRecomputed], [1, 0]);
      const ps = prefill.w.stats();
      assert.deepEqual([ps.kvTransfersSent, ps.kvPinned], [1, 0]);
    });

    void it('GetServerInfo reports the connector, kv_both and the engine id', async () => {
      const info = await unary(prefill.c, 'GetServerInfo');
      assert.deepEqual(
        [info['kv_connector'], info['kv_role'], info['kv_engine_id']],
        ['NixlConnector', 'kv_both', 'engine-p'],
      );
    });

    void it('a decode without the handoff fields recomputes the prompt', async () => {
      const base = decode.w.stats();
      complete(await collect(decode.c, 'Generate', request('d-2', 3, { do_remote_prefill: true })));
      const s = decode.w.stats();
      assert.equal(s.promptsRecomputed, base.promptsRecomputed + 1);
      assert.equal(s.kvTransfers, base.kvTransfers);
    });

    void it('a prefill whose one token is its cap but without do_remote_decode keeps no KV', async () => {
      const p = complete(await collect(prefill.c, 'Generate', request('p-2', 1, undefined)));
      assert.equal(p['kv_transfer_params_json'], undefined);
      assert.equal(prefill.w.stats().kvPinned, 0);
    });

    void it('refuses kv_transfer_params_json that is not JSON', async () => {
      const req = { ...request('bad', 1, undefined), kv_transfer_params_json: '{oops' };
      const r = await collect(prefill.c, 'Generate', req);
      assert.equal(r.code, grpc.status.INVALID_ARGUMENT);
      assert.match(r.details, /kv_transfer_params_json is not valid JSON/);
    });
  });

  void it('Mooncake: the decode queries the transfer id on the prefill bootstrap listener', async () => {
    const prefill = await start({ kvConnector: 'MooncakeConnector', kvEngineId: 'mc-p' });
    const decode = await start({ kvConnector: 'MooncakeConnector', kvEngineId: 'mc-d' });
    const decodeParams = {
      do_remote_prefill: true,
      do_remote_decode: false,
      remote_bootstrap_addr: `http://127.0.0.1:${prefill.w.bootstrapPort ?? 0}`,
      remote_engine_id: 'mc-p',
      transfer_id: 'xfer-1',
    };
    // The prefill first, as the gateway sends them: its KV is then ready for the decode's query.
    const p = await collect(
      prefill.c,
      'Generate',
      request('mc-1', 1, { do_remote_decode: true, transfer_id: 'xfer-1' }),
    );
    assert.equal(prefill.w.stats().kvPinned, 1);
    const d = await collect(decode.c, 'Generate', request('mc-1', 4, decodeParams));
    const pc = complete(p);
    assert.equal(pc['finish_reason'], 'length');
    assert.equal(pc['kv_transfer_params_json'], undefined, 'Mooncake hands nothing back');
    assert.equal(complete(d)['completion_tokens'], 4);
    const ds = decode.w.stats();
    assert.deepEqual([ds.kvTransfers, ds.promptsRecomputed], [1, 0]);
    assert.deepEqual([prefill.w.stats().kvTransfersSent, prefill.w.stats().kvPinned], [1, 0]);
  });
});
