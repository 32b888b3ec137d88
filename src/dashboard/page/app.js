/*
 * The live dashboard page: subscribes to the gateway's `events` stream (frames as described in
 * src/dashboard/frame.ts) and renders the fleet, admission, routers and plots. Plain browser
 * modules, no build step; everything is loaded from the gateway itself (relative URLs under
 * <base href>), so a strict `default-src 'self'` policy holds.
 *
 * DOM hooks, for tests and for anyone scripting the page:
 *   body[data-frames="<n>"]           live `frame` events received since load (history not counted)
 *   [data-connection]                 connecting | live | reconnecting | closed
 *   tr[data-worker="<worker key>"]    one row per worker, in the gateway's order, with
 *     data-type                       regular | prefill | decode | unknown
 *     data-health                     healthy | unhealthy | unknown
 *     data-circuit                    closed | open | half_open | unknown
 *     data-claimed, data-window       decode rows: claimed rooms and the running window ('' unknown)
 *   td[data-field=…] in those rows    key, type, runtime, model, health, circuit, inflight,
 *                                     claimed ("16 / 16", decode rows) | slots ("3 / 8", prefill
 *                                     rows) | admission (regular rows), running, waiting, kv,
 *                                     throughput; '–' stands for unknown
 *   [data-stat="<name>"]              the summary and admission numbers (see panels.js)
 *   tr[data-router="<model>/<router>"] multi-model routers (section hidden when there are none)
 *   figure[data-chart="<name>"]       requests, errors, ttft, e2e, claimed
 */
import { clock } from './format.js';
import { History } from './history.js';
import { renderRouters, renderStats } from './panels.js';
import { Plots } from './plots.js';
import { renderWorkers } from './workers.js';

// EventSource retries by itself after a network error, but gives up for good on an HTTP error
// (a 401 after a key rotation, a 503 while the gateway restarts); the page then starts a new one.
const REOPEN_AFTER_MS = 3000;
// A frame arrives about every second; this long without one and the numbers are marked stale.
const STALE_AFTER_MS = 5000;

const $ = (selector) => document.querySelector(selector);
const kept = new History();
const plots = new Plots($('#charts'));
let frames = 0;
let lastFrameAt = 0;

function setConnection(state) {
  const el = $('[data-connection]');
  el.dataset.connection = state;
  el.textContent = state;
}

function render() {
  const frame = kept.latest;
  if (frame === undefined) return;
  const count = renderWorkers($('#workers tbody'), frame.workers);
  $('#workers-empty').hidden = count > 0;
  renderStats(document.body, frame);
  renderRouters($('#routers'), $('#routers tbody'), frame.routers);
  $('#updated').textContent = clock(frame.t);
  $('#updated').dateTime = new Date(frame.t).toISOString();
  plots.draw(kept.frames);
}

function onFrames(list, live) {
  kept.add(list);
  lastFrameAt = Date.now();
  document.body.classList.remove('stale');
  if (live) document.body.dataset.frames = String(++frames);
  render();
}

function connect() {
  const source = new EventSource('events');
  source.addEventListener('open', () => setConnection('live'));
  source.addEventListener('history', (e) => onFrames(JSON.parse(e.data), false));
  source.addEventListener('frame', (e) => onFrames([JSON.parse(e.data)], true));
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CONNECTING) {
      setConnection('reconnecting');
      return;
    }
    setConnection('closed');
    source.close();
    setTimeout(() => {
      setConnection('reconnecting');
      connect();
    }, REOPEN_AFTER_MS);
  });
}

setInterval(() => {
  if (lastFrameAt > 0)
    document.body.classList.toggle('stale', Date.now() - lastFrameAt > STALE_AFTER_MS);
}, 1000);

document.body.dataset.frames = '0';
setConnection('connecting');
connect();
