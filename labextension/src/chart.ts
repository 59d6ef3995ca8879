/**
 * The panel's chart: allocated, reserved and peak of one device over time,
 * as a small SVG of three lines. Colours and text come from CSS classes
 * (style/base.css) that use JupyterLab's theme variables, so the chart
 * follows the light and the dark theme.
 */
import { formatBytes } from "./format";

const SVG = "http://www.w3.org/2000/svg";

/** One sample of one device. */
export interface Sample { time: number; allocated: number; reserved: number; peak: number }

/** The series drawn, in drawing order, with the CSS class of each line. */
export const SERIES: { key: keyof Omit<Sample, "time">; label: string }[] = [
  { key: "reserved", label: "reserved" },
  { key: "peak", label: "peak" },
  { key: "allocated", label: "allocated" },
];

const W = 260, H = 90, LEFT = 56, TOP = 6, BOTTOM = 16;

function el(name: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The smallest 1, 2 or 5 times a power of 1024 (from 1 KiB) that is at least `v`: the chart's top. */
export function niceTop(v: number): number {
  if (!(v > 0)) return 1024;
  let unit = 1024;
  while (unit * 1024 <= v) unit *= 1024;
  for (const m of [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]) if (unit * m >= v) return unit * m;
  return unit * 1024;
}

/** Draws `samples` (oldest first) into a new SVG element. */
export function drawChart(samples: Sample[]): SVGElement {
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "tsgpu-panel-chart", role: "img" });
  const top = niceTop(Math.max(0, ...samples.map((s) => Math.max(s.allocated, s.reserved, s.peak))));
  const plotW = W - LEFT - 4, plotH = H - TOP - BOTTOM;
  const y = (v: number) => TOP + plotH - (v / top) * plotH;
  for (const v of [0, top / 2, top]) {
    svg.appendChild(el("line", { x1: LEFT, x2: W - 4, y1: y(v), y2: y(v), class: "tsgpu-panel-grid" }));
    svg.appendChild(el("text", { x: LEFT - 4, y: y(v) + 3, "text-anchor": "end", class: "tsgpu-panel-axis" }, formatBytes(v)));
  }
  if (samples.length) {
    const t0 = samples[0].time, t1 = samples[samples.length - 1].time;
    const span = Math.max(1, t1 - t0);
    const x = (t: number) => LEFT + ((t - t0) / span) * plotW;
    // One sample is drawn as a flat line across the chart, so that it shows.
    const drawn = samples.length === 1 ? [{ ...samples[0], time: t0 }, { ...samples[0], time: t0 + span }] : samples;
    for (const s of SERIES) {
      const points = drawn.map((p) => `${x(p.time).toFixed(1)},${y(p[s.key]).toFixed(1)}`).join(" ");
      svg.appendChild(el("polyline", { points, class: `tsgpu-panel-line tsgpu-panel-line-${s.key}`, "data-series": s.key }));
    }
    const seconds = Math.round(span / 1000);
    svg.appendChild(el("text", { x: LEFT, y: H - 3, class: "tsgpu-panel-axis" }, samples.length === 1 ? "now" : `last ${seconds} s`));
  }
  return svg;
}
