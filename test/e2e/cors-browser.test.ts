// CORS in a real browser (Debian's headless Chromium): a page served from one loopback origin
// calls the gateway on another port (another origin) with `fetch()`, with a JSON body and an
// `Authorization` header, which makes Chromium send a preflight first. A chat completion and a
// streamed one (read in the page) succeed with the permissive default and with the page's origin
// in --cors-allowed-origins, where the page can also read `x-request-id`; with only another
// origin listed, both fail in the page with a TypeError and never reach the worker.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { launchChromium, skipWithoutChromium, type Browser } from '../helpers/chromium.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';

const KEY = 'sk-browser';
const MODEL = 'sim-model';

/**
 * The page's script: one non-streamed and one streamed chat completion against `base`, each
 * reported as what the page could see (or the error it got).
 */
const SCRIPT = `
async function call(base, stream) {
  try {
    const res = await fetch(base + '/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ${KEY}' },
      body: JSON.stringify({
        model: '${MODEL}',
        messages: [{ role: 'user', content: 'hello from a browser' }],
        max_tokens: 4,
        stream,
      }),
    });
    let events = 0;
    let text = '';
    if (stream) {
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      events = text.split('\\n').filter((line) => line.startsWith('data: ')).length;
    } else {
      text = JSON.stringify(await res.json());
    }
    return { ok: true, status: res.status, requestId: res.headers.get('x-request-id'), events, done: text.includes('[DONE]'), hasChoices: text.includes('choices') };
  } catch (err) {
    return { ok: false, error: err.name + ': ' + err.message };
  }
}
window.runCalls = async (base) => ({ plain: await call(base, false), streamed: await call(base, true) });
`;

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>cors</title>
<script src="/app.js"></script></head><body>cors test page</body></html>`;

interface CallResult {
  ok: boolean;
  status?: number;
  requestId?: string | null;
  events?: number;
  done?: boolean;
  hasChoices?: boolean;
  error?: string;
}

let worker: SimWorker;
let site: Server;
let siteOrigin: string;
let browser: Browser | undefined;
let page: Page;
const gateways: Gateway[] = [];

async function gatewayWith(flags: string[]): Promise<Gateway> {
  const gateway = await startTestGateway(['--worker-urls', worker.url, '--api-key', KEY, ...flags]);
  gateways.push(gateway);
  await waitForReadyWorkers(gateway, 1);
  return gateway;
}

function runCalls(gateway: Gateway): Promise<{ plain: CallResult; streamed: CallResult }> {
  return page.evaluate(
    // Runs in the page, where globalThis is its window.
    (base) =>
      (
        globalThis as unknown as {
          runCalls(b: string): Promise<{ plain: CallResult; streamed: CallResult }>;
        }
      ).runCalls(base),
    gateway.url,
  );
}

function assertSucceeded(result: { plain: CallResult; streamed: CallResult }): void {
  assert.deepEqual(
    { ...result.plain, requestId: undefined },
    { ok: true, status: 200, requestId: undefined, events: 0, done: false, hasChoices: true },
  );
  assert.equal(result.streamed.ok, true, result.streamed.error);
  assert.equal(result.streamed.status, 200);
  assert.equal(result.streamed.done, true, 'the stream was read to [DONE]');
  assert.ok((result.streamed.events ?? 0) >= 2, 'several events');
}

describe('CORS from a page on another origin', { skip: skipWithoutChromium() }, () => {
  before(async () => {
    worker = await startSimWorker({ model: MODEL, ttftMs: 1, itlMs: 2, outputTokens: 4 });
    site = createServer((req, res) => {
      if (req.url === '/app.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' }).end(SCRIPT);
      } else {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      }
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.goto(`${siteOrigin}/`);
  });

  after(async () => {
    await browser?.close();
    for (const gateway of gateways) await gateway.close();
    await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
    await worker?.close();
  });

  test('the permissive default lets the page call and stream', async () => {
    const gateway = await gatewayWith([]);
    const result = await runCalls(gateway);
    assertSucceeded(result);
    // `Access-Control-Expose-Headers: *` covers every header of a request without credentials.
    assert.match(result.plain.requestId ?? '', /^chatcmpl-/);
    await assertAllReleased(gateway);
  });

  test("the page's origin in --cors-allowed-origins lets it call, stream and read x-request-id", async () => {
    const gateway = await gatewayWith(['--cors-allowed-origins', siteOrigin]);
    const result = await runCalls(gateway);
    assertSucceeded(result);
    assert.match(result.plain.requestId ?? '', /^chatcmpl-/);
    assert.match(result.streamed.requestId ?? '', /^chatcmpl-/);
    await assertAllReleased(gateway);
  });

  test('only another origin listed: both calls fail in the page and never reach the worker', async () => {
    const gateway = await gatewayWith(['--cors-allowed-origins', 'http://other.example']);
    const before = worker.stats().requests['/v1/chat/completions'] ?? 0;
    const result = await runCalls(gateway);
    for (const call of [result.plain, result.streamed]) {
      assert.equal(call.ok, false);
      assert.match(call.error ?? '', /^TypeError: /);
    }
    // The preflight failed, so Chromium never sent the POST.
    assert.equal(worker.stats().requests['/v1/chat/completions'] ?? 0, before);
  });
});
