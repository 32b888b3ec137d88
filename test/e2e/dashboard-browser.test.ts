// The live dashboard in a real browser (Debian's headless Chromium): an IGW gateway with
// --api-key in front of a simulated fleet (one regular worker, two prefills, one decode with a
// running window of 4) under load from the official openai client. The page, behind HTTP Basic
// auth, lists every worker with its type and health, shows a decode window filling up during a
// burst, and shows a circuit opened by a failing worker within 2 s; it loads nothing from outside
// the gateway. A screenshot is left in .tmp/ for a person to look at.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { launchChromium, skipWithoutChromium, type Browser } from '../helpers/chromium.js';
import {
  assertAllReleased,
  metricValue,
  scrapeMetrics,
  startTestGateway,
  waitFor,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { repoPath } from '../helpers/repo-root.js';

const KEY = 'dashboard-test-key';
const MODEL = 'sim-model';
const WINDOW = 4;

let regular: SimWorker;
let prefills: SimWorker[];
let decode: SimWorker;
let gateway: Gateway;
let client: OpenAI;
let browser: Browser | undefined;
let page: Page;
let dashboardUrl: string;
let stopLoad: (() => Promise<void>) | undefined;
/** Every URL the page requested, and what it logged as an error. */
const requested: string[] = [];
const pageErrors: string[] = [];

/** An attribute of the first element `selector` matches now, or null (no element, no attribute). */
async function attr(selector: string, name: string): Promise<string | null> {
  const el = await page.$(selector);
  return el === null ? null : el.getAttribute(name);
}

/** Polls the page's DOM until `predicate` holds (the page updates about once a second). */
async function waitForPage(
  predicate: () => Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  await waitFor(predicate, what, { timeoutMs, intervalMs: 50 });
}

/**
 * A chat request that decodes `tokens` tokens, streamed (so it has a time to first token) or
 * not; resolves to `ok` or the status of the error it got.
 */
async function chat(tokens: number, stream = false): Promise<string> {
  const request = {
    model: MODEL,
    messages: [{ role: 'user' as const, content: 'watch the dashboard' }],
    max_tokens: tokens,
  };
  try {
    if (stream) {
      for await (const _chunk of await client.chat.completions.create({ ...request, stream })) {
        // Read to the end: the request holds its worker until the last token.
      }
    } else {
      await client.chat.completions.create(request);
    }
    return 'ok';
  } catch (err) {
    return err instanceof OpenAI.APIError ? String(err.status) : String(err);
  }
}

/** Steady background traffic (two clients, streamed requests) until the returned stop. */
function startLoad(): () => Promise<void> {
  let running = true;
  const loop = async (): Promise<void> => {
    while (running) {
      await chat(8, true);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const loops = [loop(), loop()];
  return async () => {
    running = false;
    await Promise.all(loops);
  };
}

describe('the dashboard page in a browser', { skip: skipWithoutChromium() }, () => {
  before(async () => {
    regular = await startSimWorker({ model: MODEL, ttftMs: 2, itlMs: 5 });
    prefills = await Promise.all(
      [0, 1].map(() => startSimWorker({ role: 'prefill', model: MODEL, ttftMs: 2, itlMs: 2 })),
    );
    // Each decode holds its room for about a second, so a burst keeps the window full over
    // several of the dashboard's one-second samples.
    decode = await startSimWorker({
      role: 'decode',
      model: MODEL,
      ttftMs: 2,
      itlMs: 25,
      maxRunningRequests: WINDOW,
    });
    gateway = await startTestGateway([
      '--enable-igw',
      '--policy',
      'round_robin',
      '--api-key',
      KEY,
      '--engine-metrics',
      '--load-monitor-interval',
      '1',
      '--prefill-max-inflight-requests-per-worker',
      '2',
      '--cb-failure-threshold',
      '2',
      '--cb-timeout-duration-secs',
      '120',
      '--worker-urls',
      regular.url,
      ...prefills.flatMap((p) => ['--prefill', p.url, String(p.bootstrapPort ?? 'none')]),
      '--decode',
      decode.url,
    ]);
    await waitForReadyWorkers(gateway, 4);
    client = new OpenAI({ apiKey: KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    dashboardUrl = gateway.metricsUrl.replace(/\/metrics$/, '/dashboard');
    browser = await launchChromium({
      httpCredentials: { username: 'operator', password: KEY },
      viewport: { width: 1400, height: 900 },
    });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('request', (r) => requested.push(r.url()));
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
  });

  after(async () => {
    await stopLoad?.();
    await browser?.close();
    await gateway?.close();
    await Promise.all([regular, ...(prefills ?? []), decode].map((w) => w?.close()));
  });

  test('without the key the page and its stream answer 401', async () => {
    for (const path of ['', '/', '/assets/app.js', '/events']) {
      const res = await fetch(dashboardUrl + path);
      await res.arrayBuffer();
      assert.equal(res.status, 401, `${path || '(page)'} without credentials`);
    }
    const events = new AbortController();
    const res = await fetch(`${dashboardUrl}/events`, {
      headers: { authorization: `Bearer ${KEY}` },
      signal: events.signal,
    });
    assert.equal(res.status, 200);
    events.abort();
  });

  test('the page goes live and lists every worker with its type and health', async () => {
    stopLoad = startLoad();
    await page.goto(dashboardUrl);
    await waitForPage(
      async () => Number(await attr('body', 'data-frames')) >= 2,
      'two live frames',
    );
    assert.equal(await attr('[data-connection]', 'data-connection'), 'live');
    const expected = new Map<string, string>([
      [regular.url, 'regular'],
      ...prefills.map((p): [string, string] => [p.url, 'prefill']),
      [decode.url, 'decode'],
    ]);
    assert.equal(await page.locator('tr[data-worker]').count(), expected.size, 'one row each');
    for (const [url, type] of expected) {
      const row = `tr[data-worker="${url}"]`;
      assert.equal(await attr(row, 'data-type'), type, `${url} type`);
      assert.equal(await attr(row, 'data-health'), 'healthy', `${url} health`);
      assert.equal(await attr(row, 'data-circuit'), 'closed', `${url} circuit`);
    }
  });

  test('a decode row fills up to its window during a burst', async () => {
    const row = `tr[data-worker="${decode.url}"]`;
    // A few seconds of the background load first, so the screenshot's plots have a history.
    await waitForPage(async () => Number(await attr('body', 'data-frames')) >= 6, 'six frames');
    assert.equal(await attr(row, 'data-window'), String(WINDOW), 'the window, discovered');
    const burst = Promise.all(Array.from({ length: 30 }, () => chat(40, true)));
    await waitForPage(
      async () => (await attr(row, 'data-claimed')) === String(WINDOW),
      'the decode row to show its window full',
      15_000,
    );
    assert.equal(
      await page.locator(`${row} [data-field="claimed"]`).textContent(),
      `${WINDOW} / ${WINDOW}`,
    );
    await mkdir(repoPath('.tmp'), { recursive: true });
    await page.screenshot({ path: repoPath('.tmp', 'dashboard.png'), fullPage: true });
    const codes = await burst;
    assert.deepEqual(
      codes.filter((c) => c !== 'ok'),
      [],
      'every request of the burst answered',
    );
  });

  test('a circuit opened by a failing worker shows as open within 2 s', async () => {
    regular.setFaults({ errorRate: 1, errorStatus: 500 });
    let openedAt = 0;
    // Only some requests go to the regular router; send until its worker's breaker opens.
    await waitFor(
      async () => {
        await chat(2);
        const m = await scrapeMetrics(gateway);
        if (metricValue(m, 'smg_worker_cb_state', { worker: regular.url }) !== 1) return false;
        openedAt = Date.now();
        return true;
      },
      'the regular worker circuit to open',
      10_000,
    );
    await page.waitForSelector(`tr[data-worker="${regular.url}"][data-circuit="open"]`, {
      timeout: 5_000,
    });
    const shownAfterMs = Date.now() - openedAt;
    assert.ok(shownAfterMs <= 2000, `the open circuit showed after ${shownAfterMs} ms`);
    regular.setFaults({});
    await page.screenshot({
      path: repoPath('.tmp', 'dashboard-circuit-open.png'),
      fullPage: true,
    });
  });

  test('the page requests nothing outside the gateway and logs no error', async () => {
    await stopLoad?.();
    const origin = new URL(dashboardUrl).origin;
    assert.ok(requested.length > 0);
    const foreign = requested.filter((u) => new URL(u).origin !== origin);
    assert.deepEqual(foreign, [], 'requests outside the gateway origin');
    assert.deepEqual(pageErrors, [], 'errors in the page');
    await assertAllReleased(gateway);
  });
});
