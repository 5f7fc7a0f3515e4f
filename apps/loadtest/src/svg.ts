/** Small inline SVG charts for the HTML report: no scripts, no external assets. */

export const escapeXml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** A round step near range/target: 1, 2 or 5 times a power of ten. */
export function niceStep(range: number, target = 5): number {
  if (!(range > 0) || !Number.isFinite(range)) return 1;
  const raw = range / target;
  const power = 10 ** Math.floor(Math.log10(raw));
  const f = raw / power;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * power;
}

export function formatNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e9) return `${+(value / 1e9).toPrecision(3)}G`;
  if (abs >= 1e6) return `${+(value / 1e6).toPrecision(3)}M`;
  if (abs >= 1e4) return `${+(value / 1e3).toPrecision(3)}k`;
  if (abs >= 100 || abs === 0) return String(Math.round(value));
  return String(+value.toPrecision(3));
}

export function formatMs(ms: number): string {
  if (ms >= 1000) return `${+(ms / 1000).toPrecision(3)} s`;
  if (ms >= 1) return `${+ms.toPrecision(3)} ms`;
  return `${+(ms * 1000).toPrecision(3)} µs`;
}

export interface LineSeries {
  readonly name: string;
  readonly color: string;
  /** [x, y]; a null y breaks the line. */
  readonly points: readonly (readonly [number, number | null])[];
  readonly dashed?: boolean;
}

export interface LineChartOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly LineSeries[];
  /** Vertical marks: the end of the ramp, say. */
  readonly marks?: readonly { x: number; label: string }[];
  readonly width?: number;
  readonly height?: number;
  readonly yFormat?: (v: number) => string;
}

const PAD = { left: 64, right: 16, top: 34, bottom: 46 };

function frame(width: number, height: number, title: string, body: string, legend: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(title)}">` +
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#fff"/>` +
    `<text x="${PAD.left}" y="20" class="title">${escapeXml(title)}</text>${legend}${body}</svg>`
  );
}

function legendOf(items: readonly { name: string; color: string }[], width: number): string {
  let x = width - PAD.right;
  const parts: string[] = [];
  for (const item of [...items].reverse()) {
    const w = 22 + item.name.length * 6.6;
    x -= w;
    parts.push(
      `<rect x="${x.toFixed(1)}" y="11" width="12" height="4" fill="${item.color}"/>` +
        `<text x="${(x + 16).toFixed(1)}" y="17" class="legend">${escapeXml(item.name)}</text>`,
    );
    x -= 8;
  }
  return parts.join('');
}

/** A line chart with linear axes (x: seconds, usually). */
export function lineChart(o: LineChartOptions): string {
  const width = o.width ?? 1100;
  const height = o.height ?? 260;
  const fmt = o.yFormat ?? formatNumber;
  const xs: number[] = [];
  const ys: number[] = [];
  for (const s of o.series)
    for (const [x, y] of s.points) {
      xs.push(x);
      if (y !== null && Number.isFinite(y)) ys.push(y);
    }
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  if (xs.length === 0 || ys.length === 0)
    return frame(width, 90, o.title, `<text x="${PAD.left}" y="56" class="empty">No data.</text>`, '');
  const xMin = Math.min(0, ...xs);
  const xMax = Math.max(xMin + 1, ...xs, ...(o.marks ?? []).map((m) => m.x));
  const yStep = niceStep(Math.max(...ys, 0) || 1);
  const yMax = Math.max(yStep, Math.ceil(Math.max(...ys) / yStep) * yStep);
  const X = (x: number) => PAD.left + ((x - xMin) / (xMax - xMin)) * plotW;
  const Y = (y: number) => PAD.top + plotH - (y / yMax) * plotH;
  const parts: string[] = [];
  for (let y = 0; y <= yMax + yStep / 2; y += yStep)
    parts.push(
      `<line x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${Y(y).toFixed(1)}" y2="${Y(y).toFixed(1)}" class="grid"/>` +
        `<text x="${PAD.left - 6}" y="${(Y(y) + 4).toFixed(1)}" class="tick" text-anchor="end">${escapeXml(fmt(y))}</text>`,
    );
  const xStep = niceStep(xMax - xMin, 10);
  for (let x = Math.ceil(xMin / xStep) * xStep; x <= xMax; x += xStep)
    parts.push(
      `<line x1="${X(x).toFixed(1)}" x2="${X(x).toFixed(1)}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH + 4}" class="axis"/>` +
        `<text x="${X(x).toFixed(1)}" y="${PAD.top + plotH + 16}" class="tick" text-anchor="middle">${escapeXml(formatNumber(x))}</text>`,
    );
  for (const mark of o.marks ?? [])
    if (mark.x >= xMin && mark.x <= xMax)
      parts.push(
        `<line x1="${X(mark.x).toFixed(1)}" x2="${X(mark.x).toFixed(1)}" y1="${PAD.top}" y2="${PAD.top + plotH}" class="mark"/>` +
          (X(mark.x) > PAD.left + plotW - 80
            ? `<text x="${(X(mark.x) - 4).toFixed(1)}" y="${PAD.top + 10}" class="marklabel" text-anchor="end">`
            : `<text x="${(X(mark.x) + 4).toFixed(1)}" y="${PAD.top + 10}" class="marklabel">`) +
          `${escapeXml(mark.label)}</text>`,
      );
  for (const s of o.series) {
    let d = '';
    let pen = false;
    for (const [x, y] of s.points) {
      if (y === null || !Number.isFinite(y)) {
        pen = false;
        continue;
      }
      d += `${pen ? 'L' : 'M'}${X(x).toFixed(1)},${Y(y).toFixed(1)}`;
      pen = true;
    }
    if (d !== '')
      parts.push(
        `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.6"${s.dashed ? ' stroke-dasharray="5,3"' : ''}/>`,
      );
  }
  parts.push(
    `<line x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH}" class="axis"/>`,
    `<line x1="${PAD.left}" x2="${PAD.left}" y1="${PAD.top}" y2="${PAD.top + plotH}" class="axis"/>`,
    `<text x="${PAD.left + plotW / 2}" y="${height - 8}" class="label" text-anchor="middle">${escapeXml(o.xLabel)}</text>`,
    `<text transform="translate(14,${PAD.top + plotH / 2}) rotate(-90)" class="label" text-anchor="middle">${escapeXml(o.yLabel)}</text>`,
  );
  return frame(width, height, o.title, parts.join(''), legendOf(o.series, width));
}

export interface HistogramSeries {
  readonly name: string;
  readonly color: string;
  /** Log-scale buckets in ms: [fromMs, toMs), count. */
  readonly buckets: readonly { fromMs: number; toMs: number; count: number }[];
}

/**
 * A histogram over log-scale latency buckets: x is log10(ms), one bar per bucket and series, side
 * by side; y is the share of the series' samples (so series of different sizes compare).
 */
export function histogramChart(o: {
  title: string;
  series: readonly HistogramSeries[];
  width?: number;
  height?: number;
}): string {
  const width = o.width ?? 1100;
  const height = o.height ?? 280;
  const series = o.series.filter((s) => s.buckets.some((b) => b.count > 0));
  if (series.length === 0)
    return frame(width, 90, o.title, `<text x="${PAD.left}" y="56" class="empty">No samples.</text>`, '');
  const lo = Math.min(...series.flatMap((s) => s.buckets.map((b) => b.fromMs)));
  const hi = Math.max(...series.flatMap((s) => s.buckets.map((b) => b.toMs)));
  const lx0 = Math.floor(Math.log10(lo));
  const lx1 = Math.max(lx0 + 1, Math.ceil(Math.log10(hi)));
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const X = (ms: number) => PAD.left + ((Math.log10(ms) - lx0) / (lx1 - lx0)) * plotW;
  const shares = series.map((s) => {
    const total = s.buckets.reduce((sum, b) => sum + b.count, 0);
    return s.buckets.map((b) => ({ ...b, share: total > 0 ? (b.count / total) * 100 : 0 }));
  });
  const top = Math.max(...shares.flatMap((s) => s.map((b) => b.share)));
  const yStep = niceStep(top || 1);
  const yMax = Math.max(yStep, Math.ceil(top / yStep) * yStep);
  const Y = (v: number) => PAD.top + plotH - (v / yMax) * plotH;
  const parts: string[] = [];
  for (let y = 0; y <= yMax + yStep / 2; y += yStep)
    parts.push(
      `<line x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${Y(y).toFixed(1)}" y2="${Y(y).toFixed(1)}" class="grid"/>` +
        `<text x="${PAD.left - 6}" y="${(Y(y) + 4).toFixed(1)}" class="tick" text-anchor="end">${formatNumber(y)}%</text>`,
    );
  for (let p = lx0; p <= lx1; p++) {
    for (const m of [1, 2, 5]) {
      const ms = m * 10 ** p;
      if (ms < 10 ** lx0 || ms > 10 ** lx1) continue;
      const x = X(ms).toFixed(1);
      parts.push(
        `<line x1="${x}" x2="${x}" y1="${PAD.top}" y2="${PAD.top + plotH + 4}" class="${m === 1 ? 'grid' : 'grid faint'}"/>` +
          `<text x="${x}" y="${PAD.top + plotH + 16}" class="tick" text-anchor="middle">${escapeXml(formatMs(ms))}</text>`,
      );
    }
  }
  shares.forEach((buckets, si) => {
    const color = series[si]!.color;
    for (const b of buckets) {
      if (b.count === 0) continue;
      const x0 = X(b.fromMs);
      const w = (X(b.toMs) - x0) / series.length;
      const x = x0 + si * w;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${Y(b.share).toFixed(1)}" width="${Math.max(0.5, w - 0.6).toFixed(1)}" ` +
          `height="${(PAD.top + plotH - Y(b.share)).toFixed(1)}" fill="${color}">` +
          `<title>${escapeXml(`${series[si]!.name}: ${formatMs(b.fromMs)}–${formatMs(b.toMs)}: ${b.count}`)}</title></rect>`,
      );
    }
  });
  parts.push(
    `<line x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH}" class="axis"/>`,
    `<line x1="${PAD.left}" x2="${PAD.left}" y1="${PAD.top}" y2="${PAD.top + plotH}" class="axis"/>`,
    `<text x="${PAD.left + plotW / 2}" y="${height - 8}" class="label" text-anchor="middle">latency (log scale)</text>`,
    `<text transform="translate(14,${PAD.top + plotH / 2}) rotate(-90)" class="label" text-anchor="middle">share of samples</text>`,
  );
  return frame(width, height, o.title, parts.join(''), legendOf(series, width));
}
