// The number panels: the summary strip, prefill and decode admission, and the routers table.
// Each value lands in the element whose data-stat names it, so the markup decides the layout.
import { DASH, duration, num } from './format.js';

function sum(record) {
  return Object.values(record).reduce((a, b) => a + b, 0);
}

/** Values of every [data-stat] element, computed from one frame. */
function stats(frame) {
  const { traffic, prefill, decode, workers } = frame;
  const healthy = workers.filter((w) => w.healthy === true).length;
  return {
    'requests-per-s': num(traffic.requestsPerS),
    'errors-per-s': num(sum(traffic.errorsPerS)),
    'ttft-p50': duration(traffic.ttft?.p50 ?? null),
    'ttft-p99': duration(traffic.ttft?.p99 ?? null),
    'e2e-p50': duration(traffic.e2e?.p50 ?? null),
    'e2e-p99': duration(traffic.e2e?.p99 ?? null),
    'workers-healthy': `${healthy} / ${workers.length}`,
    'circuits-open': String(workers.filter((w) => w.circuit === 'open').length),
    'prefill-queued': num(prefill.queued),
    'prefill-wait-p50': duration(prefill.wait?.p50 ?? null),
    'prefill-wait-p99': duration(prefill.wait?.p99 ?? null),
    'prefill-rejections-per-s': num(prefill.rejectionsPerS),
    'decode-waits-per-s': num(decode.waitsPerS),
    'decode-sheds-per-s': num(decode.shedsPerS),
  };
}

/** Fills every [data-stat] under `root`; flags the ones that mean trouble when non-zero. */
export function renderStats(root, frame) {
  const values = stats(frame);
  for (const el of root.querySelectorAll('[data-stat]')) {
    const text = values[el.dataset.stat] ?? DASH;
    if (el.textContent !== text) el.textContent = text;
    if (el.hasAttribute('data-alarm')) {
      el.closest('.stat')?.classList.toggle('alarm', text !== DASH && Number(text) > 0);
    }
  }
}

/**
 * The regular/PD split of a multi-model gateway: one row per (model, router). The section stays
 * hidden for a single-router gateway, whose frames carry no routers.
 */
export function renderRouters(section, tbody, routers) {
  section.hidden = routers.length === 0;
  if (section.hidden) return;
  const totals = new Map();
  for (const r of routers) totals.set(r.model, (totals.get(r.model) ?? 0) + r.selectionsPerS);
  const rows = routers.map((r) => {
    const tr = document.createElement('tr');
    tr.dataset.router = `${r.model}/${r.routerType}`;
    const total = totals.get(r.model) ?? 0;
    const share = total > 0 ? `${Math.round((100 * r.selectionsPerS) / total)}%` : DASH;
    for (const [field, text] of [
      ['model', r.model],
      ['router', r.routerType],
      ['weight', num(r.weight)],
      ['selections', num(r.selectionsPerS)],
      ['share', share],
    ]) {
      const td = document.createElement('td');
      td.dataset.field = field;
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  });
  tbody.replaceChildren(...rows);
}
