// The fleet table: one row per worker, kept across frames (keyed by the worker's key) so a row
// being read or hovered is updated in place rather than replaced every second.
import { DASH, num, ofLimit, percent } from './format.js';

// Column order; `field` is the cell's data-field unless the row's type renames it (admission).
const COLUMNS = [
  'key',
  'type',
  'runtime',
  'model',
  'health',
  'circuit',
  'inflight',
  'admission',
  'running',
  'waiting',
  'kv',
  'throughput',
];

/** `data-health`: the gauge is a boolean; a worker without one is neither up nor down. */
function healthOf(w) {
  if (w.healthy === true) return 'healthy';
  if (w.healthy === false) return 'unhealthy';
  return 'unknown';
}

/** `data-circuit`: a worker without a breaker series has no known state. */
function circuitOf(w) {
  return w.circuit ?? 'unknown';
}

function newRow(key) {
  const tr = document.createElement('tr');
  tr.dataset.worker = key;
  for (const field of COLUMNS) {
    const td = document.createElement('td');
    td.dataset.field = field;
    tr.append(td);
  }
  const admission = tr.querySelector('[data-field="admission"]');
  const bar = document.createElement('span');
  bar.className = 'bar';
  const fill = document.createElement('span');
  fill.className = 'fill';
  bar.append(fill);
  const label = document.createElement('span');
  label.className = 'label';
  admission.append(bar, label);
  return tr;
}

function set(tr, field, text) {
  const td = tr.children[COLUMNS.indexOf(field)];
  if (td.textContent !== text) td.textContent = text;
  return td;
}

function badge(tr, field, state, text) {
  const td = tr.children[COLUMNS.indexOf(field)];
  let span = td.firstElementChild;
  if (!span) {
    span = document.createElement('span');
    td.append(span);
  }
  span.className = `badge ${field}-${state}`;
  span.textContent = text;
}

/**
 * The admission cell: decode rows show claimed rooms against the running window, prefill rows
 * admission slots against the limit, each with a bar; regular workers have no admission.
 */
function admission(tr, w) {
  const td = tr.children[COLUMNS.indexOf('admission')];
  const [bar, label] = td.children;
  let used = null;
  let limit = null;
  if (w.type === 'decode') {
    td.dataset.field = 'claimed';
    used = w.claimedRooms;
    limit = w.window;
    tr.dataset.claimed = used === null ? '' : String(used);
    tr.dataset.window = limit === null ? '' : String(limit);
  } else if (w.type === 'prefill') {
    td.dataset.field = 'slots';
    used = w.prefillInflight;
    limit = w.prefillLimit;
  } else {
    td.dataset.field = 'admission';
  }
  const gated = used !== null || limit !== null;
  label.textContent = gated ? ofLimit(used, limit) : DASH;
  bar.hidden = !(limit !== null && limit > 0);
  if (!bar.hidden) {
    const ratio = Math.min(1, (used ?? 0) / limit);
    bar.firstElementChild.style.width = `${(ratio * 100).toFixed(1)}%`;
    bar.classList.toggle('full', ratio >= 1);
  }
}

function update(tr, w) {
  const health = healthOf(w);
  const circuit = circuitOf(w);
  tr.dataset.type = w.type ?? 'unknown';
  tr.dataset.health = health;
  tr.dataset.circuit = circuit;
  set(tr, 'key', w.worker).title = w.worker;
  set(tr, 'type', w.type ?? DASH);
  set(
    tr,
    'runtime',
    w.connectionMode ? `${w.runtime ?? DASH} (${w.connectionMode})` : (w.runtime ?? DASH),
  );
  set(tr, 'model', w.model ?? DASH);
  badge(tr, 'health', health, health);
  badge(tr, 'circuit', circuit, circuit.replace('_', '-'));
  set(tr, 'inflight', num(w.inflight));
  admission(tr, w);
  const e = w.engine;
  set(tr, 'running', e ? num(e.running) : DASH);
  set(tr, 'waiting', e ? num(e.waiting) : DASH);
  set(tr, 'kv', e ? percent(e.tokenUsage) : DASH);
  set(tr, 'throughput', e ? num(e.genThroughput) : DASH);
}

/** Renders `workers` (already sorted by the gateway) into `tbody`, reusing rows by key. */
export function renderWorkers(tbody, workers) {
  const rows = new Map();
  for (const tr of tbody.querySelectorAll('tr[data-worker]')) rows.set(tr.dataset.worker, tr);
  const keep = new Set();
  workers.forEach((w, i) => {
    const tr = rows.get(w.worker) ?? newRow(w.worker);
    update(tr, w);
    keep.add(w.worker);
    // appendChild/insertBefore move an existing node: order follows the frame without rebuilding.
    if (tbody.children[i] !== tr) tbody.insertBefore(tr, tbody.children[i] ?? null);
  });
  for (const [key, tr] of rows) if (!keep.has(key)) tr.remove();
  return workers.length;
}
