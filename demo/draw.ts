// The evaluation drawn with plain SVG: one chart per input (its sets, the value, the degrees)
// and one per output (its sets clipped by the rules, combined, and the balance point).
import type { Polygon } from '../src/engine/types.js';

export const palette = ['#e4572e', '#2a9d8f', '#6a4c93', '#f4a261', '#1d70a2', '#b5179e', '#588157'];

/** Each set's colour: the palette's, in order, round again past its end. */
export const coloursOf = (names: readonly string[]) => new Map(names.map((name, index) => [name, palette[index % palette.length]!]));

/** A chart's width in its own units: its box's width in pixels (fitChartsTo), so its words keep their size on a phone. */
let width = 460;

/** Draws the next charts `pixels` wide (within 280..460 units): call it with the box they go in. */
export function fitChartsTo(pixels: number): void {
  if (pixels > 0) width = Math.max(280, Math.min(460, Math.floor(pixels)));
}
const plotHeight = 138;
const margin = { left: 34, right: 14, bottom: 30 };
/** One row of set names above the plot; more rows when names would overlap. */
const labelRow = 15;
/** The answer's label has its own band below the axis numbers, clear of every shape. */
const answerBand = 22;
/** Set names longer than this are cut with "…" (the whole name is in the label's tooltip). */
const longestLabel = 22;
/** Width of one character of a 12px bold label in the chart's units, generously estimated. */
const labelCharacter = 7.4;

interface Scale {
  x(value: number): number;
  y(degree: number): number;
}

function scaleFor(range: readonly [number, number], top: number): Scale {
  const [min, max] = range;
  const span = max - min || 1;
  return {
    x: (value) => margin.left + ((value - min) / span) * (width - margin.left - margin.right),
    y: (degree) => top + plotHeight * (1 - degree),
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

/** Tick values at a round step, e.g. 0, 5, 10 … for a range of 0..30, and the decimals that step needs. */
export function ticks([min, max]: readonly [number, number]): { values: number[]; decimals: number } {
  const rough = (max - min) / 5 || 1;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough) ?? rough;
  const first = Math.ceil(min / step) * step;
  const values = Array.from({ length: Math.floor((max - first) / step + 1e-9) + 1 }, (_, index) => first + index * step);
  // every label of an axis with the same decimals, as many as the step needs: 0 2 4 … 10, 0.0 0.5 1.0
  const decimals = Math.min(10, Math.max(0, (Number(step.toPrecision(6)).toString().split('.')[1] ?? '').length));
  return { values, decimals };
}

export const formatNumber = (value: number) => (Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(Math.abs(value) >= 10 ? 1 : 2));

const shortName = (name: string) => (name.length > longestLabel ? `${name.slice(0, longestLabel - 1)}…` : name);

interface Label {
  name: string;
  /** where the label would like its centre: above its set's peak */
  x: number;
  color: string;
}

/**
 * Set names above the plot, never overlapping: each keeps to its set's peak where it fits and
 * takes the next row up where it would touch a neighbour. Returns the rows it needed.
 */
function placeLabels(labels: Label[]): Array<Label & { row: number; text: string; left: number }> {
  const rows: number[] = []; // per row, the right edge of its last label
  return [...labels]
    .sort((a, b) => a.x - b.x)
    .map((label) => {
      const text = shortName(label.name);
      const extent = text.length * labelCharacter;
      const left = Math.min(Math.max(label.x - extent / 2, 0), width - extent);
      let row = rows.findIndex((rightEdge) => rightEdge + 8 <= left);
      if (row === -1) row = rows.push(0) - 1;
      rows[row] = left + extent;
      return { ...label, row, text, left };
    });
}

function chart(range: readonly [number, number], label: string, labels: Label[], bottomBand = 0) {
  const placed = placeLabels(labels);
  const rows = Math.max(1, ...placed.map(({ row }) => row + 1));
  const top = rows * labelRow + 8;
  const height = top + plotHeight + margin.bottom + bottomBand;
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': label }) as SVGSVGElement;
  const scale = scaleFor(range, top);
  for (const degree of [0, 0.5, 1]) {
    root.append(
      svg('line', { x1: margin.left, x2: width - margin.right, y1: scale.y(degree), y2: scale.y(degree), class: degree === 0 ? 'axis' : 'grid' }),
      svg('text', { x: margin.left - 6, y: scale.y(degree) + 4, class: 'tick degree-tick', 'text-anchor': 'end' }, degree.toFixed(1)),
    );
  }
  const axis = ticks(range);
  for (const value of axis.values) {
    root.append(svg('text', { x: scale.x(value), y: scale.y(0) + 16, class: 'tick value-tick', 'text-anchor': 'middle' }, value.toFixed(axis.decimals)));
  }
  for (const { text, name, left, row, color } of placed) {
    const element = svg('text', { x: left, y: top - 10 - row * labelRow, class: 'set-name', fill: color }, text);
    element.append(svg('title', {}, name));
    root.append(element);
  }
  return { root, scale, height };
}

/** Above the middle of the set's top (its peak, or its plateau). */
function peak(polygon: Polygon): number {
  const highest = Math.max(...polygon.map(([, y]) => y));
  const top = polygon.filter(([, y]) => y === highest);
  return ((top[0]?.[0] ?? 0) + (top.at(-1)?.[0] ?? 0)) / 2;
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
  const scaleX = scaleFor(input.range, 0).x;
  const labels = Object.entries(input.sets).map(([setName, polygon], index) => ({
    name: setName,
    x: scaleX(peak(polygon)),
    color: palette[index % palette.length]!,
  }));
  const { root, scale } = chart(input.range, `${name}: sets and value`, labels);
  Object.entries(input.sets).forEach(([, polygon], index) => {
    const color = palette[index % palette.length]!;
    root.append(svg('path', { d: `${path(polygon, scale)} Z`, fill: color, 'fill-opacity': 0.1, stroke: color, 'stroke-width': 2 }));
  });
  const clamped = Math.min(Math.max(input.value, input.range[0]), input.range[1]);
  const x = scale.x(clamped);
  root.append(svg('line', { x1: x, x2: x, y1: scale.y(0), y2: scale.y(1.04), class: 'value-line' }));
  // Beside its dot, on the side with room; labels at nearly the same degree are spread apart. A
  // curve is never quite 0: a degree that would read 0.00 gets no dot, or the labels would pile up.
  const shown = Object.entries(input.sets)
    .map(([setName], index) => ({ setName, degree: input.degrees[setName] ?? 0, color: palette[index % palette.length]! }))
    .filter(({ degree }) => degree >= 0.005)
    .sort((a, b) => b.degree - a.degree);
  let lastBaseline = -Infinity;
  for (const { setName, degree, color } of shown) {
    const y = scale.y(degree);
    const text = `${shortName(setName)} ${degree.toFixed(2)}`;
    const extent = text.length * labelCharacter;
    const onRight = x + 10 + extent <= width || x - 10 - extent < 0;
    // nudged below the dot near the top so it never covers the set names
    const baseline = Math.max(degree > 0.85 ? y + 16 : y + 4, lastBaseline + 14);
    lastBaseline = baseline;
    const left = onRight ? Math.min(x + 10, width - extent) : Math.max(x - 10 - extent, 0);
    root.append(
      svg('line', { x1: margin.left, x2: x, y1: y, y2: y, stroke: color, class: 'degree-line' }),
      svg('circle', { cx: x, cy: y, r: 5, fill: color, class: 'degree-dot' }),
      svg('text', { x: left, y: baseline, class: 'degree', fill: color }, text),
    );
  }
  return root;
}

/**
 * An output's term as drawn: a fuzzy set's shape; a Takagi–Sugeno constant, a stem at its value;
 * a Takagi–Sugeno linear term, which has no place of its own (its value depends on the inputs).
 */
export type OutputTerm = { shape: Polygon } | { value: number } | { linear: true };

export interface OutputChart {
  range: readonly [number, number];
  /** term name → how it is drawn */
  terms: Record<string, OutputTerm>;
  /**
   * term name → its shape cut at the strength the rules gave it (only terms reached); for a
   * weighted output a bar [[z, 0], [z, w], [z, 0]]: the term's value z weighed by w
   */
  clipped: Record<string, Polygon>;
  combined: Polygon | undefined;
  centroid: [number, number] | undefined;
}

/** A weighted output's clipped term: a bar standing at one value (docs/ENGINE.md, "the evaluation log"). */
export const isBar = (polygon: Polygon) => polygon.length > 0 && polygon.every(([x]) => x === polygon[0]![0]);

/** More Takagi–Sugeno terms than this get no names on the chart: they are listed under it. */
const mostNamedValues = 12;

export function drawOutput(name: string, output: OutputChart): SVGSVGElement {
  const colors = coloursOf(Object.keys(output.terms));
  const scaleX = scaleFor(output.range, 0).x;
  const values = Object.values(output.terms).filter((term) => !('shape' in term)).length;
  const labels = Object.entries(output.terms).flatMap(([term, drawn]) => {
    const at = 'shape' in drawn ? peak(drawn.shape) : 'value' in drawn && values <= mostNamedValues ? drawn.value : undefined;
    return at === undefined ? [] : [{ name: term, x: scaleX(at), color: colors.get(term)! }];
  });
  const weighted = Object.values(output.clipped).some(isBar);
  const what = weighted ? 'each term’s value weighed by its rules’ strength, and their weighted mean' : 'clipped sets, combined shape and balance point';
  const { root, scale, height } = chart(output.range, `${name}: ${what}`, labels, answerBand);
  for (const [term, drawn] of Object.entries(output.terms)) {
    const color = colors.get(term)!;
    if ('shape' in drawn) {
      root.append(svg('path', { d: path(drawn.shape, scale), fill: 'none', stroke: color, 'stroke-width': 1.5, 'stroke-dasharray': '4 4', opacity: 0.6 }));
    } else if ('value' in drawn) {
      const x = scale.x(drawn.value);
      root.append(
        svg('line', {
          x1: x,
          x2: x,
          y1: scale.y(0),
          y2: scale.y(1),
          stroke: color,
          'stroke-width': 1.5,
          'stroke-dasharray': '4 4',
          opacity: 0.6,
          class: 'stem',
        }),
        svg('circle', { cx: x, cy: scale.y(1), r: 3.5, fill: 'white', stroke: color, 'stroke-width': 1.5, opacity: 0.8 }),
      );
    }
  }
  if (output.combined && !weighted) {
    root.append(svg('path', { d: `${path(output.combined, scale)} Z`, class: 'combined' }));
  }
  const [low, high] = output.range;
  for (const [term, polygon] of Object.entries(output.clipped)) {
    const color = colors.get(term) ?? palette[0]!;
    if (!isBar(polygon)) {
      root.append(svg('path', { d: `${path(polygon, scale)} Z`, fill: color, 'fill-opacity': 0.35, stroke: color, 'stroke-width': 2 }));
      continue;
    }
    const z = polygon[0]![0];
    const top = scale.y(Math.max(...polygon.map(([, w]) => w)));
    if (z < low || z > high) {
      // a value beyond the chart: an arrow at its edge, at the bar's height, pointing to where it is
      const edge = scale.x(z < low ? low : high);
      const out = z < low ? -1 : 1;
      const arrow = svg('path', { d: `M${edge},${top - 5} L${edge + 8 * out},${top} L${edge},${top + 5} Z`, fill: color, class: 'bar-beyond' });
      arrow.append(svg('title', {}, `${term}: ${formatNumber(z)}, beyond the chart`));
      root.append(arrow);
      continue;
    }
    const x = scale.x(z);
    const bar = svg('g', { class: 'bar' });
    bar.append(
      svg('line', { x1: x, x2: x, y1: scale.y(0), y2: top, stroke: color, 'stroke-width': 4, 'stroke-linecap': 'butt' }),
      svg('circle', { cx: x, cy: top, r: 4, fill: color }),
      svg('title', {}, `${term}: ${formatNumber(z)}`),
    );
    root.append(bar);
  }
  if (output.centroid) {
    const [cx, cy] = output.centroid;
    const x = scale.x(cx);
    // The label sits in the band under the axis numbers, on the line's foot, so it covers no shape.
    const text = `${name} = ${formatNumber(cx)}`;
    const extent = text.length * labelCharacter;
    const left = Math.min(Math.max(x - extent / 2, 0), width - extent);
    root.append(
      svg('line', { x1: x, x2: x, y1: scale.y(0), y2: scale.y(1.04), class: 'crisp-line' }),
      svg('circle', { cx: x, cy: scale.y(cy), r: 6, class: 'centroid' }),
      svg('text', { x: left, y: height - 6, class: 'crisp-label' }, text),
    );
  }
  return root;
}
