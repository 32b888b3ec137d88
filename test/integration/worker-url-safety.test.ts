// Worker URLs through the real /workers API: no credentials, one registry key per worker, no
// and no link-local or cloud metadata targets.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import { assertAllReleased, scrapeMetrics, startTestGateway, waitFor } from '../helpers/gateway.js';
import { assertWorkerRefused, postJson } from '../helpers/http.js';

let sim: SimWorker;
let gateway: Gateway;

before(async () => {
  sim = await startSimWorker({ model: 'sim-model', runtime: 'sglang' });
  gateway = await startTestGateway(['--policy', 'round_robin']);
});

after(async () => {
  await gateway.close();
  await sim.close();
});

void describe('credentials in a worker URL', () => {
  test('POST and PUT /workers refuse user:password@ without echoing it; it reaches no header, metric or listing', async () => {
    const secretUrl = sim.url.replace('http://', 'http://admin:hunter2@');
    const message = await assertWorkerRefused(gateway.url, secretUrl, /credentials.*api_key/);
    assert.doesNotMatch(message, /hunter2/);
    const res = await postJson(`${gateway.url}/workers`, { url: sim.url, api_key: 'hunter2' });
    assert.equal(res.status, 202);
    const { worker_id: id } = (await res.json()) as { worker_id: string };
    await waitFor(() => gateway.internals.registry.get(id)?.status === 'ready', 'sim worker ready');
    const put = await fetch(`${gateway.url}/workers/${id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: secretUrl }),
    });
    assert.equal(put.status, 400);
    assert.doesNotMatch(await put.text(), /hunter2/);

    const completion = await postJson(`${gateway.url}/v1/completions`, {
      model: 'sim-model',
      prompt: 'x',
      max_tokens: 1,
    });
    await completion.arrayBuffer();
    assert.equal(completion.status, 200);
    assert.equal(completion.headers.get('x-smg-routed-worker-id'), sim.url);
    for (const [name, value] of completion.headers)
      assert.doesNotMatch(`${name}: ${value}`, /hunter2/);
    assert.doesNotMatch(await (await fetch(`${gateway.url}/workers`)).text(), /hunter2/);
    assert.doesNotMatch(await scrapeMetrics(gateway), /hunter2/);
    await assertAllReleased(gateway);
  });

  test('a whitespace-padded or slash-variant URL is the same registry key: 409', async () => {
    for (const variant of [`  ${sim.url}  `, `${sim.url}/`, `\t${sim.url}//\n`]) {
      const res = await postJson(`${gateway.url}/workers`, { url: variant });
      const body = (await res.json()) as { code: string; error: string };
      assert.equal(res.status, 409, `${JSON.stringify(variant)}: ${JSON.stringify(body)}`);
      assert.equal(body.code, 'WORKER_ALREADY_EXISTS');
    }
    assert.equal(gateway.internals.registry.all().length, 1);
  });

  test('an upper-case scheme is refused, as SMG (which keys workers by the URL as typed)', async () => {
    await assertWorkerRefused(
      gateway.url,
      sim.url.replace(/^http:/, 'HTTP:'),
      /scheme must be lower-case \(http:\/\/\)/,
    );
    await assertWorkerRefused(
      gateway.url,
      'GRPC://127.0.0.1:50051',
      /scheme must be lower-case \(grpc:\/\/\)/,
    );
    await assertWorkerRefused(
      gateway.url,
      'ipc:///tmp/engine.sock',
      /ipc:\/\/ \(ZMQ\) workers are not supported yet/,
    );
    assert.equal(gateway.internals.registry.all().length, 1);
  });
});

void describe('addresses that are never workers', () => {
  test('link-local and metadata targets are refused in every spelling', async () => {
    for (const url of [
      'http://169.254.169.254/',
      'http://2852039166/',
      'http://0xa9fea9fe/',
      'http://[::ffff:169.254.169.254]/',
      'http://[fe80::1]:8000/',
      'http://metadata.google.internal/',
    ]) {
      await assertWorkerRefused(gateway.url, url, /link-local or cloud metadata|metadata service/);
    }
  });
});
