// A worker URL with a path prefix (`http://h:p/engine`): every request to that worker, inference
// included, goes under the prefix, as the docs promise (requests go to url + path).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import OpenAI from 'openai';
import { assertAllReleased, startTestGateway, waitFor } from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';

/** An engine served under `/engine` only, recording every path it is asked for. */
interface PrefixedEngine {
  base: string;
  paths: string[];
  close(): Promise<void>;
}

async function startPrefixedEngine(): Promise<PrefixedEngine> {
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    const full = req.url ?? '';
    paths.push(full);
    req.resume();
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const path = full.split('?')[0] ?? '';
    if (!path.startsWith('/engine/')) return json(404, { error: `no route ${path}` });
    switch (path.slice('/engine'.length)) {
      case '/health':
        return json(200, {});
      case '/v1/models':
        return json(200, {
          object: 'list',
          data: [{ id: 'prefixed-model', object: 'model', owned_by: 'sglang' }],
        });
      case '/get_server_info':
        return json(200, { max_running_requests: 8 });
      case '/v1/completions':
        return json(200, {
          id: 'c',
          object: 'text_completion',
          created: 0,
          model: 'prefixed-model',
          choices: [{ index: 0, text: 'ok', finish_reason: 'stop', logprobs: null }],
        });
      default:
        return json(404, { error: `no route ${path}` });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

void describe('a worker URL with a path prefix', () => {
  test('inference, proxied routes, probes and discovery all go under the prefix', async () => {
    const engine = await startPrefixedEngine();
    const prefixed = await startTestGateway(['--policy', 'round_robin']);
    try {
      const res = await postJson(`${prefixed.url}/workers`, { url: `${engine.base}/engine/` });
      assert.equal(res.status, 202);
      await waitFor(
        () => prefixed.internals.registry.all().some((w) => w.isHealthy),
        'prefixed worker ready',
      );
      const worker = prefixed.internals.registry.all()[0];
      assert.equal(worker?.url, `${engine.base}/engine`);
      assert.equal(worker?.modelId, 'prefixed-model', 'discovery read /engine/v1/models');

      const client = new OpenAI({ baseURL: `${prefixed.url}/v1`, apiKey: 'unused', maxRetries: 0 });
      const completion = await client.completions.create({
        model: 'prefixed-model',
        prompt: 'hi',
        max_tokens: 1,
      });
      assert.equal(completion.choices[0]?.text, 'ok');
      const info = await fetch(`${prefixed.url}/get_server_info`);
      assert.equal(info.status, 200);
      assert.deepEqual(await info.json(), { max_running_requests: 8 });

      assert.ok(engine.paths.includes('/engine/v1/completions'), engine.paths.join(' '));
      assert.ok(engine.paths.includes('/engine/health'));
      const outside = engine.paths.filter((p) => !p.startsWith('/engine/'));
      assert.deepEqual(outside, [], 'no request left the prefix');
      await assertAllReleased(prefixed);
    } finally {
      await prefixed.close();
      await engine.close();
    }
  });
});
