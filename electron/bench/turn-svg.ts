/**
 * The turn-taking trade-off as an SVG chart (pure, no dependencies): false cut-off rate (y, %)
 * against median end-of-turn latency (x, ms), one line per policy family, each point labelled.
 */

export interface ChartPoint {
  /** Median end-of-turn latency, ms. */
  x: number;
  /** False cut-off rate, %. */
  y: number;
  label: string;
}

export interface ChartSeries {
  name: string;
  points: ChartPoint[];
  /** Write each point's label beside it (default true); off where the legend already says what the points are. */
  labelPoints?: boolean;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];
const W = 860;
const H = 460;
const M = { left: 64, right: 270, top: 44, bottom: 56 };

const radius = (family: number) => Math.max(2.5, 6 - family);
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const num = (v: number) => String(Math.round(v * 10) / 10);

/** A round tick step (1, 2 or 5 times a power of ten) giving about `count` ticks over [0, max]. */
export function tickStep(max: number, count = 6): number {
  const raw = max / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
}

/** The axis end: the data's maximum (at least `min`) rounded up to a whole tick. */
function axisMax(values: number[], min: number): { max: number; step: number } {
  const top = Math.max(min, ...values);
  const step = tickStep(top);
  return { max: Math.ceil(top / step) * step, step };
}

/** A placed label's box (approximate: 10 px sans-serif, about 5.6 px a character). */
interface Box {
  x: number;
  y: number;
  w: number;
  text: string;
}

const overlaps = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && Math.abs(a.y - b.y) < 11;

/**
 * Where a point's label goes: the first spot around it that no placed label covers; null when the
 * same text already sits at this point (policies of different families often coincide).
 */
function placeLabel(cx: number, cy: number, text: string, placed: Box[], bottom: number): Box | null {
  const w = text.length * 5.6;
  // Above the point first: below it, at 0 %, lies the axis.
  const spots = [
    [5, -6],
    [5, -17],
    [-5 - w, -6],
    [-5 - w, -17],
    [5, 14],
    [-5 - w, 14],
  ] as const;
  for (const [dx, dy] of spots) {
    const box = { x: cx + dx, y: cy + dy, w, text };
    if (box.y <= bottom - 3 && !placed.some((b) => overlaps(b, box))) return box;
  }
  if (placed.some((b) => b.text === text && Math.abs(b.x - cx) < w + 12 && Math.abs(b.y - cy) < 30)) return null;
  return { x: cx + 5, y: cy - 6, w, text };
}

export function tradeoffSvg(series: readonly ChartSeries[], title = 'End of turn: false cut-offs against latency', subtitle = ''): string {
  const all = series.flatMap((s) => s.points);
  const xs = axisMax(all.map((p) => p.x), 500);
  const ys = axisMax(all.map((p) => p.y), 10);
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const px = (x: number) => M.left + (x / xs.max) * pw;
  const py = (y: number) => M.top + ph - (y / ys.max) * ph;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  out.push(`<text x="${M.left}" y="22" font-size="15" font-weight="bold">${esc(title)}</text>`);
  if (subtitle) out.push(`<text x="${M.left}" y="37" font-size="11" fill="#555">${esc(subtitle)}</text>`);
  // Grid and ticks.
  for (let x = 0; x <= xs.max + 1e-9; x += xs.step) {
    out.push(`<line x1="${num(px(x))}" y1="${M.top}" x2="${num(px(x))}" y2="${M.top + ph}" stroke="#e6e6e6"/>`);
    out.push(`<text x="${num(px(x))}" y="${M.top + ph + 18}" text-anchor="middle">${num(x)}</text>`);
  }
  for (let y = 0; y <= ys.max + 1e-9; y += ys.step) {
    out.push(`<line x1="${M.left}" y1="${num(py(y))}" x2="${M.left + pw}" y2="${num(py(y))}" stroke="#e6e6e6"/>`);
    out.push(`<text x="${M.left - 8}" y="${num(py(y) + 4)}" text-anchor="end">${num(y)}</text>`);
  }
  // Axes.
  out.push(`<line x1="${M.left}" y1="${M.top + ph}" x2="${M.left + pw}" y2="${M.top + ph}" stroke="#333"/>`);
  out.push(`<line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${M.top + ph}" stroke="#333"/>`);
  out.push(`<text x="${M.left + pw / 2}" y="${H - 14}" text-anchor="middle">median end-of-turn latency (ms, end pause start → end of turn)</text>`);
  out.push(`<text transform="translate(16 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">false cut-offs (% of holds)</text>`);
  // One line per family, its points labelled. Each family's marks are smaller than the one before,
  // so coinciding points show as rings of every family's colour rather than hiding each other.
  const placed: Box[] = [];
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    const r = radius(i);
    const d = s.points.map((p, k) => `${k === 0 ? 'M' : 'L'}${num(px(p.x))} ${num(py(p.y))}`).join(' ');
    out.push(`<g class="series">`);
    out.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="${Math.max(1, 2 - i * 0.25)}"/>`);
    for (const p of s.points) {
      out.push(`<circle cx="${num(px(p.x))}" cy="${num(py(p.y))}" r="${r}" fill="${color}"/>`);
      if (s.labelPoints === false) continue;
      const box = placeLabel(px(p.x), py(p.y), p.label, placed, M.top + ph);
      if (!box) continue;
      placed.push(box);
      out.push(`<text x="${num(box.x)}" y="${num(box.y)}" font-size="10" fill="${color}">${esc(p.label)}</text>`);
    }
    out.push(`</g>`);
  });
  // Legend, right of the plot.
  const lx = M.left + pw + 16;
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    const y = M.top + 8 + i * 20;
    out.push(`<line x1="${lx}" y1="${y}" x2="${lx + 22}" y2="${y}" stroke="${color}" stroke-width="2"/>`);
    out.push(`<circle cx="${lx + 11}" cy="${y}" r="${radius(i)}" fill="${color}"/>`);
    out.push(`<text x="${lx + 28}" y="${y + 4}">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
