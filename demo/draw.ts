// The evaluation drawn with plain SVG: one chart per input (its sets, the value, the degrees)
// and one per output (its sets clipped by the rules, combined, and the balance point).
import type { Polygon } from '../src/engine/types.js';

export const palette = ['#e4572e', '#2a9d8f', '#6a4c93', '#f4a261', '#1d70a2', '#b5179e', '#588157'];

const width = 460;
const height = 190;
const margin = { left: 34, right: 14, top: 22, bottom: 30 };

interface Scale {
  x(value: number): number;
  y(degree: number): number;
}

function scaleFor(range: readonly [number, number]): Scale {
  const [min, max] = range;
  const span = max - min || 1;
  return {
    x: (value) => margin.left + ((value - min) / span) * (width - margin.left - margin.right),
    y: (degree) => height - margin.bottom - degree * (height - margin.top - margin.bottom),
  };
}

function svg(tag: string, attributes: Record<string, string | number> = {}, text?: string): SVGElement {
  const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

const path = (polygon: Polygon, scale: Scale) =>
  polygon.map(([x, y], index) => `${index === 0 ? 'M' : 'L'}${scale.x(x).toFixed(2)},${scale.y(y).toFixed(2)}`).join(' ');

/** Tick values at a round step, e.g. 0, 5, 10 … for a range of 0..30. */
function ticks([min, max]: readonly [number, number]): number[] {
  const rough = (max - min) / 5 || 1;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough) ?? rough;
  const first = Math.ceil(min / step) * step;
  return Array.from({ length: Math.floor((max - first) / step + 1e-9) + 1 }, (_, index) => first + index * step);
}

export const formatNumber = (value: number) => (Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(Math.abs(value) >= 10 ? 1 : 2));

function chart(range: readonly [number, number], label: string): { root: SVGSVGElement; scale: Scale } {
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': label }) as SVGSVGElement;
  const scale = scaleFor(range);
  for (const degree of [0, 0.5, 1]) {
    root.append(
      svg('line', { x1: margin.left, x2: width - margin.right, y1: scale.y(degree), y2: scale.y(degree), class: degree === 0 ? 'axis' : 'grid' }),
      svg('text', { x: margin.left - 6, y: scale.y(degree) + 4, class: 'tick', 'text-anchor': 'end' }, String(degree)),
    );
  }
  for (const value of ticks(range)) {
    root.append(svg('text', { x: scale.x(value), y: height - margin.bottom + 16, class: 'tick', 'text-anchor': 'middle' }, formatNumber(value)));
  }
  return { root, scale };
}

function setLabel(root: SVGElement, scale: Scale, polygon: Polygon, name: string, color: string): void {
  const top = polygon.filter(([, y]) => y === Math.max(...polygon.map(([, h]) => h)));
  const middle = ((top[0]?.[0] ?? 0) + (top.at(-1)?.[0] ?? 0)) / 2;
  root.append(svg('text', { x: scale.x(middle), y: margin.top - 8, class: 'set-name', fill: color, 'text-anchor': 'middle' }, name));
}

export interface InputChart {
  range: readonly [number, number];
  /** set name → its full shape */
  sets: Record<string, Polygon>;
  value: number;
  /** set name → degree at the value */
  degrees: Record<string, number>;
}

export function drawInput(name: string, input: InputChart): SVGSVGElement {
  const { root, scale } = chart(input.range, `${name}: sets and value`);
  Object.entries(input.sets).forEach(([setName, polygon], index) => {
    const color = palette[index % palette.length]!;
    root.append(svg('path', { d: `${path(polygon, scale)} Z`, fill: color, 'fill-opacity': 0.1, stroke: color, 'stroke-width': 2 }));
    setLabel(root, scale, polygon, setName, color);
  });
  const clamped = Math.min(Math.max(input.value, input.range[0]), input.range[1]);
  const x = scale.x(clamped);
  root.append(svg('line', { x1: x, x2: x, y1: scale.y(0), y2: scale.y(1.04), class: 'value-line' }));
  Object.entries(input.sets).forEach(([setName], index) => {
    const degree = input.degrees[setName] ?? 0;
    if (degree <= 0) return;
    const color = palette[index % palette.length]!;
    const y = scale.y(degree);
    const onRight = x < width / 2;
    root.append(
      svg('line', { x1: margin.left, x2: x, y1: y, y2: y, stroke: color, class: 'degree-line' }),
      svg('circle', { cx: x, cy: y, r: 5, fill: color, class: 'degree-dot' }),
      // Beside the dot, nudged below it near the top so it never covers the set names.
      svg('text', { x: x + (onRight ? 10 : -10), y: degree > 0.85 ? y + 16 : y + 4, class: 'degree', fill: color, 'text-anchor': onRight ? 'start' : 'end' }, `${setName} ${degree.toFixed(2)}`),
    );
  });
  return root;
}

export interface OutputChart {
  range: readonly [number, number];
  /** set name → its full shape */
  sets: Record<string, Polygon>;
  /** set name → its shape cut at the strength the rules gave it (only sets reached) */
  clipped: Record<string, Polygon>;
  combined: Polygon | undefined;
  centroid: [number, number] | undefined;
}

export function drawOutput(name: string, output: OutputChart): SVGSVGElement {
  const { root, scale } = chart(output.range, `${name}: clipped sets, combined shape and balance point`);
  const colors = new Map(Object.keys(output.sets).map((setName, index) => [setName, palette[index % palette.length]!]));
  for (const [setName, polygon] of Object.entries(output.sets)) {
    const color = colors.get(setName)!;
    root.append(svg('path', { d: path(polygon, scale), fill: 'none', stroke: color, 'stroke-width': 1.5, 'stroke-dasharray': '4 4', opacity: 0.6 }));
    setLabel(root, scale, polygon, setName, color);
  }
  if (output.combined) {
    root.append(svg('path', { d: `${path(output.combined, scale)} Z`, class: 'combined' }));
  }
  for (const [setName, polygon] of Object.entries(output.clipped)) {
    const color = colors.get(setName) ?? palette[0]!;
    root.append(svg('path', { d: `${path(polygon, scale)} Z`, fill: color, 'fill-opacity': 0.35, stroke: color, 'stroke-width': 2 }));
  }
  if (output.centroid) {
    const [cx, cy] = output.centroid;
    const x = scale.x(cx);
    root.append(
      svg('line', { x1: x, x2: x, y1: scale.y(0), y2: scale.y(1.04), class: 'crisp-line' }),
      svg('circle', { cx: x, cy: scale.y(cy), r: 6, class: 'centroid' }),
      svg('text', { x: x + (x < width / 2 ? 8 : -8), y: scale.y(0) - 8, class: 'crisp-label', 'text-anchor': x < width / 2 ? 'start' : 'end' }, `${name} = ${formatNumber(cx)}`),
    );
  }
  return root;
}
