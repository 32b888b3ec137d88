// The time-series plots, drawn by uPlot (vendored; `window.uPlot` from its iife build). Each
// chart turns the page's frame history into series; when the set of series changes (a new error
// code, a decode worker joining) the chart is rebuilt, since that is rare and uPlot's
// add/delete-series would need the old and new columns lined up by hand.
import { DASH, clock as clockTime, duration, num } from './format.js';

const HEIGHT = 180;
// Distinguishable on both the light and the dark background.
const PALETTE = ['#3b82f6', '#f59e0b', '#10b981', '#ef4444', '#8b5cf6', '#06b6d4', '#ec4899'];

/** p50/p90/p99 of a latency; no series at all until some frame has samples. */
function percentiles(pick) {
  return (frames) =>
    frames.some((f) => pick(f))
      ? ['p50', 'p90', 'p99'].map((p) => ({
          label: p,
          values: frames.map((f) => pick(f)?.[p] ?? null),
        }))
      : [];
}

/** Error codes in the order they first appeared, each with zero where a frame has none. */
function errorSeries(frames) {
  const codes = [];
  for (const f of frames)
    for (const c of Object.keys(f.traffic.errorsPerS)) if (!codes.includes(c)) codes.push(c);
  return codes.map((code) => ({
    label: code,
    values: frames.map((f) => f.traffic.errorsPerS[code] ?? 0),
  }));
}

/** Per decode worker its claimed rooms, and its window as a dashed line of the same colour. */
function claimedSeries(frames) {
  const keys = [];
  for (const f of frames)
    for (const w of f.workers)
      if (w.type === 'decode' && !keys.includes(w.worker)) keys.push(w.worker);
  return keys.flatMap((key, i) => {
    const rows = frames.map((f) => f.workers.find((w) => w.worker === key));
    return [
      {
        label: key.replace(/^https?:\/\//, ''),
        color: i,
        values: rows.map((w) => w?.claimedRooms ?? null),
      },
      { label: `window`, color: i, dash: true, values: rows.map((w) => w?.window ?? null) },
    ];
  });
}

/** The charts, by the data-chart of their <figure>. */
const CHARTS = {
  requests: {
    format: num,
    series: (fs) => [{ label: 'req/s', values: fs.map((f) => f.traffic.requestsPerS) }],
  },
  errors: { format: num, series: errorSeries, palette: 3 },
  ttft: { format: duration, series: percentiles((f) => f.traffic.ttft) },
  e2e: { format: duration, series: percentiles((f) => f.traffic.e2e) },
  claimed: { format: num, series: claimedSeries },
  queued: {
    format: num,
    series: (fs) => [{ label: 'queued', values: fs.map((f) => f.prefill.queued) }],
  },
};

/** Time labels as the viewer's clock (uPlot's default adds a date row that crowds a narrow plot). */
function timeLabels(_u, splits) {
  return splits.map((s) => clockTime(s * 1000));
}

function themeColor(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

function build(host, def, series, data) {
  const axis = {
    stroke: themeColor('--muted'),
    grid: { stroke: themeColor('--grid'), width: 1 },
    ticks: { stroke: themeColor('--grid'), width: 1 },
  };
  const show = (_u, v) => (v === null || v === undefined ? DASH : def.format(v));
  const opts = {
    width: Math.max(200, host.clientWidth),
    height: HEIGHT,
    // Room on the right for the newest time label, which sits on the plot's edge.
    padding: [8, 28, 0, 0],
    cursor: { drag: { x: false, y: false } },
    hooks: { ready: [showLatest], setData: [showLatest] },
    scales: { y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
    axes: [
      { ...axis, space: 80, values: timeLabels },
      {
        ...axis,
        size: 64,
        values: (_u, splits) => splits.map((v) => (v === 0 ? '0' : def.format(v))),
      },
    ],
    series: [
      {},
      ...series.map((s, i) => ({
        label: s.label,
        stroke: PALETTE[((def.palette ?? 0) + (s.color ?? i)) % PALETTE.length],
        width: 2,
        dash: s.dash ? [6, 4] : undefined,
        spanGaps: false,
        points: { show: false },
        value: show,
      })),
    ],
  };
  return new window.uPlot(opts, data, host);
}

/**
 * Keeps the legend on the newest values while the pointer is not over the plot. Run from uPlot's
 * hooks, because a new plot and new data are committed after the call that gave them.
 */
function showLatest(plot) {
  const length = plot.data[0].length;
  if (length > 0 && !(plot.cursor.left >= 0)) plot.setLegend({ idx: length - 1 });
}

export class Plots {
  constructor(root) {
    this.charts = [...root.querySelectorAll('[data-chart]')].map((figure) => ({
      figure,
      host: figure.querySelector('.plot'),
      def: CHARTS[figure.dataset.chart],
      plot: null,
      shape: '',
    }));
    this.resize = new ResizeObserver(() => {
      for (const c of this.charts)
        c.plot?.setSize({ width: Math.max(200, c.host.clientWidth), height: HEIGHT });
    });
    for (const c of this.charts) this.resize.observe(c.host);
    // Canvas colours are read once per build, so a theme switch rebuilds every chart.
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
      for (const c of this.charts) c.shape = '';
    });
  }

  /** Redraws every chart from `frames` (oldest first). */
  draw(frames) {
    const xs = frames.map((f) => f.t / 1000);
    for (const c of this.charts) {
      const series = c.def.series(frames);
      c.figure.classList.toggle('empty', series.length === 0);
      const data = [xs, ...series.map((s) => s.values)];
      const shape = series.map((s) => s.label).join('\n');
      if (shape !== c.shape || c.plot === null) {
        c.plot?.destroy();
        c.plot = series.length === 0 ? null : build(c.host, c.def, series, data);
        c.shape = shape;
      } else {
        c.plot.setData(data);
      }
    }
  }
}
