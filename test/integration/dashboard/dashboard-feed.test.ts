/**
 * The live dashboard's server side against a real PD gateway: the page and its files behind
 * --api-key, and frames that show the fleet as the metrics do (types, windows, claims filling up
 * during a burst, rates and latency percentiles), with the history a late page starts from.
 */
import assert from 'node:assert/strict';
import { get as httpGet } from 'node:http';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { openDashboardEvents } from '../../helpers/dashboard-events.js';
import { assertAllReleased, startTestGateway } from '../../helpers/gateway.js';
import { startAdmittedPdSetup, type PdSetup } from '../../helpers/pd-fleet.js';

const KEY = 'dash-key';
const BEARER = { authorization: `Bearer ${KEY}` };
const basic = (user: string, password: string): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

/** The status of a GET whose path goes out exactly as given. */
function rawStatus(url: string, headers: Record<string, string>): Promise<number> {
  const { hostname, port } = new URL(url);
  const path = url.slice(url.indexOf('/', url.indexOf('//') + 2));
  return new Promise((resolve, reject) => {
    httpGet({ hostname, port, path, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

let pd: PdSetup;
let dashboard: string;

before(async () => {
  pd = await startAdmittedPdSetup({
    decode: { itlMs: 40 },
    flags: ['--api-key', KEY],
  });
  assert.ok(pd.gateway.dashboardUrl);
  dashboard = pd.gateway.dashboardUrl;
});

after(async () => {
  await pd.close();
});

test('the page, its files and its events take the --api-key as Basic or bearer credentials', async () => {
  const none = await fetch(dashboard);
  assert.equal(none.status, 401);
  assert.match(none.headers.get('www-authenticate') ?? '', /^Basic realm=/);
  assert.equal((await fetch(dashboard, { headers: basic('x', 'wrong') })).status, 401);
  assert.equal((await fetch(`${dashboard}/events`)).status, 401);
  assert.equal((await fetch(`${dashboard}/assets/uPlot.iife.min.js`)).status, 401);

  const page = await fetch(dashboard, { headers: basic('anyone', KEY) });
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
  const html = await page.text();
  assert.match(html, /<base href="\/dashboard\/" ?\/?>/);
  assert.doesNotMatch(html, /\{\{BASE\}\}/);
  // Everything the page loads is a relative URL the gateway serves.
  assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//);

  const uplot = await fetch(`${dashboard}/assets/uPlot.iife.min.js`, { headers: BEARER });
  assert.equal(uplot.status, 200);
  assert.match(uplot.headers.get('content-type') ?? '', /javascript/);
  assert.match(await uplot.text(), /uPlot/);
  // Sent as written (fetch would resolve the dots away): the asset names are a closed list.
  assert.equal(await rawStatus(`${dashboard}/assets/../../package.json`, BEARER), 404);
  assert.equal(await rawStatus(`${dashboard}/assets/%2e%2e/index.html`, BEARER), 404);
  assert.equal((await fetch(`${dashboard}/nothing`, { headers: BEARER })).status, 404);
  assert.equal((await fetch(dashboard, { method: 'POST', headers: BEARER })).status, 405);
  // /metrics stays open, as SMG's is.
  assert.equal((await fetch(pd.gateway.metricsUrl)).status, 200);
});

test('frames show the fleet, a decode window filling during a burst, rates and latencies', async () => {
  const events = await openDashboardEvents(dashboard, BEARER);
  try {
    const first = await events.until((f) => f.workers.length === 2, 'both workers');
    const [prefill, decode] = first.workers;
    assert.equal(prefill?.type, 'prefill');
    assert.equal(prefill?.worker, pd.prefills[0]?.url);
    assert.equal(prefill?.runtime, 'sglang');
    assert.equal(prefill?.healthy, true);
    assert.equal(prefill?.prefillLimit, 1);
    assert.equal(decode?.type, 'decode');
    assert.equal(decode?.worker, pd.decodes[0]?.url);
    assert.equal(decode?.window, 4);
    assert.equal(decode?.claimedRooms, 0);

    const client = new OpenAI({ apiKey: KEY, baseURL: `${pd.gateway.url}/v1`, maxRetries: 0 });
    const burst = Promise.all(
      Array.from({ length: 12 }, () =>
        client.chat.completions.create({
          model: 'sim-model',
          messages: [{ role: 'user', content: 'fill the window' }],
          max_tokens: 40,
        }),
      ),
    );
    const full = await events.until(
      (f) => f.workers.some((w) => w.type === 'decode' && w.claimedRooms === 4),
      'the decode window full (4 of 4)',
    );
    assert.equal(full.workers.find((w) => w.type === 'decode')?.window, 4);
    const answers = await burst;
    assert.equal(answers.length, 12);

    // Requests count when they start, latencies when they end: two frames, usually.
    const busy = await events.until((f) => f.traffic.requestsPerS > 0, 'a request rate');
    assert.ok(busy.intervalS > 0);
    const timed = await events.until(
      (f) => f.traffic.ttft !== null && f.traffic.e2e !== null,
      'TTFT and end-to-end percentiles',
    );
    assert.ok((timed.traffic.ttft?.count ?? 0) > 0);
    assert.ok((timed.traffic.e2e?.p50 ?? 0) > 0);
    await events.until(
      (f) => f.t > full.t && f.workers.every((w) => (w.claimedRooms ?? 0) === 0),
      'every claim back',
    );
  } finally {
    events.close();
  }

  // A page opened later starts from the frames the gateway kept.
  const late = await openDashboardEvents(dashboard, BEARER);
  try {
    await late.until(() => late.history.length >= 2, 'a history of frames');
    const times = late.history.map((f) => f.t);
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
    );
  } finally {
    late.close();
  }
  await assertAllReleased(pd.gateway);
});

test('--dashboard-path moves the page; --disable-dashboard removes it and keeps /metrics', async () => {
  const moved = await startTestGateway(['--dashboard-path', 'ops/fleet/']);
  try {
    assert.ok(moved.dashboardUrl?.endsWith('/ops/fleet'));
    const base = moved.metricsUrl.replace(/\/metrics$/, '');
    assert.equal((await fetch(`${base}/dashboard`)).status, 404);
    const page = await fetch(`${base}/ops/fleet`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<base href="\/ops\/fleet\/" ?\/?>/);
    assert.equal((await fetch(`${base}/ops/fleet/assets/uPlot.min.css`)).status, 200);
  } finally {
    await moved.close();
  }
  const off = await startTestGateway(['--disable-dashboard']);
  try {
    assert.equal(off.dashboardUrl, undefined);
    const base = off.metricsUrl.replace(/\/metrics$/, '');
    assert.equal((await fetch(`${base}/dashboard`)).status, 404);
    assert.equal((await fetch(off.metricsUrl)).status, 200);
  } finally {
    await off.close();
  }
});
