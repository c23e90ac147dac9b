// The "Control surface" panel: an output over two chosen inputs as a heat map (or over one input as
// a curve, for an agent with one), every other input held at a value the person sets, computed in
// the page by the engine (demo/surface.ts) and drawn in a <canvas> with its axes and colour scale.
import { compileAgent, type CompiledAgent } from '../src/engine/index.js';
import type { Agent } from '../src/schema/index.js';
import { formatNumber, ticks } from './draw.js';
import type { DemoContext } from './main.js';
import { extentOf, surfaceAxes, surfaceColour, surfacePoints, type Surface } from './surface.js';

/** Grid points per axis: 41 × 41 = 1,681 evaluations, a cell per 2.5% of each range. */
export const SURFACE_POINTS = 41;
/** Points of a one-input curve. */
const CURVE_POINTS = 201;
const noAnswer = '#d0d5dd';
const font = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const ink = '#1f2430';
const muted = '#667085';

interface Choice {
  /** the agent it is for */
  agent: string;
  output: string;
  x: string;
  y: string | undefined;
  held: Record<string, number>;
}

/** Where the plot sits in the canvas (CSS pixels), and how values map onto it. */
interface Frame {
  left: number;
  right: number;
  top: number;
  bottom: number;
  x(value: number): number;
  y(value: number): number;
}

export function mountSurfacePanel(container: HTMLElement, context: Pick<DemoContext, 'onAgentChange' | 'onDraw' | 'evaluateAt'>): void {
  container.innerHTML = `
    <h2><span class="step">▦</span> The control surface <small>the answer over two inputs, every other input held still</small></h2>
    <div class="surface-controls">
      <label>Output <select data-choice="output"></select></label>
      <label>Across <select data-choice="x"></select></label>
      <label data-needs-two>Up <select data-choice="y"></select></label>
    </div>
    <div class="held"></div>
    <figure class="surface">
      <canvas role="img"></canvas>
      <figcaption class="small surface-readout" aria-live="polite"></figcaption>
    </figure>
    <p class="hint small surface-note"></p>`;
  const select = (name: string) => container.querySelector<HTMLSelectElement>(`[data-choice="${name}"]`)!;
  const canvas = container.querySelector('canvas')!;
  const readout = container.querySelector<HTMLElement>('.surface-readout')!;
  const note = container.querySelector<HTMLElement>('.surface-note')!;
  let compiled: CompiledAgent | null = null;
  let choice: Choice | null = null;
  let surface: Surface | null = null;
  /** How many of the surface's points are computed (the rest are not drawn yet). */
  let computed = 0;
  /** The inputs on screen above, ringed on the surface. */
  let onScreen: Record<string, number> | null = null;
  let frame: Frame | null = null;
  let pending = 0;

  context.onAgentChange((agent) => {
    compiled = agent ? compileAgent(agent) : null;
    if (!compiled || !agent) return;
    choice = keepChoice(agent, compiled, choice);
    fillSelects();
    buildHeldSliders();
    void recompute();
  });

  for (const name of ['output', 'x', 'y'] as const) {
    select(name).addEventListener('change', () => {
      const picked = select(name).value;
      if (name === 'output') choice!.output = picked;
      // the other axis takes the input this one left, so the two always differ
      else if (name === 'x') [choice!.x, choice!.y] = [picked, choice!.y === picked ? choice!.x : choice!.y];
      else [choice!.y, choice!.x] = [picked, choice!.x === picked ? choice!.y! : choice!.x];
      fillSelects();
      buildHeldSliders();
      void recompute();
    });
  }

  function fillSelects(): void {
    const { inputs, outputs } = compiled!;
    const options = (names: string[], chosen: string | undefined) => names.map((name) => new Option(name, name, false, name === chosen));
    select('output').replaceChildren(...options(Object.keys(outputs), choice!.output));
    select('x').replaceChildren(...options(Object.keys(inputs), choice!.x));
    select('y').replaceChildren(...options(Object.keys(inputs), choice!.y));
    container.querySelector<HTMLElement>('[data-needs-two]')!.hidden = choice!.y === undefined;
    container.querySelector('h2 small')!.textContent =
      choice!.y === undefined ? 'the answer over the whole range of its input' : 'the answer over two inputs, every other input held still';
  }

  function buildHeldSliders(): void {
    const held = container.querySelector('.held')!;
    held.replaceChildren(
      ...Object.entries(compiled!.inputs)
        .filter(([name]) => name !== choice!.x && name !== choice!.y)
        .map(([name, { range }]) => {
          const label = document.createElement('label');
          label.className = 'slider';
          label.innerHTML = `<span class="name"></span><input type="range" /><output></output>`;
          label.querySelector('.name')!.textContent = `${name} held at`;
          const slider = Object.assign(label.querySelector('input')!, {
            min: String(range[0]),
            max: String(range[1]),
            step: String((range[1] - range[0]) / 200),
          });
          slider.value = String(choice!.held[name]);
          slider.setAttribute('aria-label', `${name} held at`);
          label.querySelector('output')!.textContent = formatNumber(choice!.held[name]!);
          slider.addEventListener('input', () => {
            choice!.held[name] = Number(slider.value);
            label.querySelector('output')!.textContent = formatNumber(choice!.held[name]!);
            // at most one surface per frame however fast the slider moves
            cancelAnimationFrame(pending);
            pending = requestAnimationFrame(() => void recompute());
          });
          return label;
        }),
    );
  }

  /** The computation under way; a newer one (another choice, a held value moved) makes it stop. */
  let computation = 0;

  /**
   * Computes the surface in slices of about 40 ms of the engine's work, drawing what is done after
   * each, so that the page keeps answering while a slow agent's thousands of evaluations run.
   */
  async function recompute(): Promise<void> {
    const run = ++computation;
    const { output, x, y, held } = choice!;
    const request = { output, x, ...(y === undefined ? {} : { y }), held: { ...held }, points: y === undefined ? CURVE_POINTS : SURFACE_POINTS };
    const axes = surfaceAxes(compiled!, request);
    const count = axes.x.values.length * (axes.y?.values.length ?? 1);
    const values = new Float64Array(count).fill(NaN);
    delete canvas.dataset.surface; // until this one is whole
    let took = 0;
    for (let done = 0; done < count; ) {
      const sliceStarted = performance.now();
      while (done < count && performance.now() - sliceStarted < 40) {
        const next = Math.min(count, done + axes.x.values.length);
        values.set(surfacePoints(compiled!, request, done, next), done);
        done = next;
      }
      took += performance.now() - sliceStarted;
      const extent = extentOf(values.subarray(0, done));
      surface = { output, ...axes, values, ...(extent ? { extent } : {}) };
      computed = done;
      if (done < count) {
        note.textContent = `Computing… ${Math.round((100 * done) / count)}% of ${count.toLocaleString('en')} points`;
        draw();
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (run !== computation) return;
      }
    }
    const missing = values.filter(Number.isNaN).length;
    note.textContent =
      `${y === undefined ? `${count} points` : `${SURFACE_POINTS} × ${SURFACE_POINTS} = ${count.toLocaleString('en')} points`}, ` +
      `each an evaluation by the engine in this page: ${took < 10 ? took.toFixed(1) : took.toFixed(0)} ms.` +
      (missing > 0 ? ` Grey: no rule reaches ${output} there, so it has no answer (${missing} of ${count}).` : '');
    canvas.dataset.surface = JSON.stringify({
      output,
      x: surface!.x,
      ...(surface!.y ? { y: surface!.y } : {}),
      held: Object.fromEntries(Object.entries(request.held).filter(([name]) => name !== x && name !== y)),
      values: Array.from(values, (value) => (Number.isNaN(value) ? null : value)),
    });
    draw();
  }

  function draw(): void {
    if (!surface) return;
    const width = Math.min(640, Math.max(260, container.querySelector('.surface')!.clientWidth));
    frame = surface.y ? drawHeatMap(canvas, surface, computed, width) : drawCurve(canvas, surface, computed, width);
    if (onScreen) drawMarker(canvas.getContext('2d')!, frame, surface, onScreen);
    // where the plot is in the canvas, beside the values (data-surface): what a script needs to point at one
    canvas.dataset.plot = JSON.stringify({ left: frame.left, top: frame.top, right: frame.right, bottom: frame.bottom });
    canvas.setAttribute(
      'aria-label',
      surface.y ? `${surface.output} over ${surface.x.name} and ${surface.y.name}, as colours` : `${surface.output} over ${surface.x.name}`,
    );
    showReadout();
  }

  /** The value under the pointer, or what to do to read one. */
  function showReadout(event?: PointerEvent): void {
    const point = event && frame && surface ? pointAt(event) : undefined;
    if (!point) {
      readout.textContent = 'Point at the surface to read its value; click to evaluate there. The ring: the inputs on screen above.';
      return;
    }
    const { i, j } = point;
    const index = surface!.y ? j * surface!.x.values.length + i : i;
    if (index >= computed) {
      readout.textContent = 'Not computed yet.';
      return;
    }
    const value = surface!.values[index]!;
    const where = [
      `${surface!.x.name} ${formatNumber(surface!.x.values[i]!)}`,
      ...(surface!.y ? [`${surface!.y.name} ${formatNumber(surface!.y.values[j]!)}`] : []),
    ];
    readout.textContent = `${where.join(', ')} → ${surface!.output} ${Number.isNaN(value) ? 'has no answer (no rule fires)' : formatNumber(value)}`;
  }

  /** The grid point nearest the pointer, when it is over the plot. */
  function pointAt(event: MouseEvent): { i: number; j: number } | undefined {
    const box = canvas.getBoundingClientRect();
    const [px, py] = [event.clientX - box.left, event.clientY - box.top];
    const { left, right, top, bottom } = frame!;
    if (px < left || px > right || py < top || py > bottom) return undefined;
    const nearest = (share: number, count: number) => Math.round(share * (count - 1));
    const i = nearest((px - left) / (right - left), surface!.x.values.length);
    const j = surface!.y ? nearest((bottom - py) / (bottom - top), surface!.y.values.length) : 0;
    return { i, j };
  }

  context.onDraw((inputs) => {
    onScreen = inputs;
    draw();
  });
  // a click evaluates there: the inputs on screen become the point's (and the held values), stored as a slider's release is
  canvas.addEventListener('click', (event) => {
    const point = frame && surface ? pointAt(event) : undefined;
    if (!point || !choice) return;
    const { x, y } = surface!;
    void context.evaluateAt({ ...choice.held, [x.name]: x.values[point.i]!, ...(y ? { [y.name]: y.values[point.j]! } : {}) });
  });
  canvas.addEventListener('pointermove', showReadout);
  canvas.addEventListener('pointerdown', showReadout);
  canvas.addEventListener('pointerleave', () => showReadout());
  let drawnWidth = 0;
  new ResizeObserver(() => {
    const width = container.clientWidth;
    if (width === drawnWidth) return;
    drawnWidth = width;
    draw();
  }).observe(container);
}

/**
 * What the panel shows for an agent: the choice it had when the agent is still the one on screen
 * (a new version), as far as it still fits; else its first output over its first two inputs, every
 * other input held at the middle of its range.
 */
function keepChoice(agent: Agent, compiled: CompiledAgent, previous: Choice | null): Choice {
  const inputs = Object.keys(compiled.inputs);
  const outputs = Object.keys(compiled.outputs);
  const middle = Object.fromEntries(Object.entries(compiled.inputs).map(([name, { range }]) => [name, (range[0] + range[1]) / 2]));
  const kept = previous?.agent === agent.id ? previous : null;
  const x = kept && inputs.includes(kept.x) ? kept.x : inputs[0]!;
  const others = inputs.filter((name) => name !== x);
  const y = kept?.y !== undefined && others.includes(kept.y) ? kept.y : others[0];
  const held = Object.fromEntries(inputs.map((name) => [name, kept?.held[name] ?? middle[name]!]));
  const output = kept && outputs.includes(kept.output) ? kept.output : outputs[0]!;
  return { agent: agent.id, output, x, y, held };
}

/** Sizes the canvas for `width` × `height` CSS pixels at the screen's resolution and returns its context. */
function prepare(canvas: HTMLCanvasElement, width: number, height: number): CanvasRenderingContext2D {
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const context = canvas.getContext('2d')!;
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.font = font;
  return context;
}

function frameFor(width: number, plotHeight: number, xRange: readonly [number, number], yRange: readonly [number, number]): Frame {
  const [left, right, top] = [64, width - 14, 10];
  const bottom = top + plotHeight;
  const xSpan = xRange[1] - xRange[0] || 1;
  const ySpan = yRange[1] - yRange[0] || 1;
  return {
    left,
    right,
    top,
    bottom,
    x: (value) => left + ((value - xRange[0]) / xSpan) * (right - left),
    y: (value) => bottom - ((value - yRange[0]) / ySpan) * (bottom - top),
  };
}

/** The axes' numbers and names: x below the plot, y left of it (its name turned upright). */
function drawAxes(
  context: CanvasRenderingContext2D,
  frame: Frame,
  xName: string,
  xRange: readonly [number, number],
  yName: string,
  yRange: readonly [number, number],
): void {
  context.strokeStyle = ink;
  context.lineWidth = 1;
  context.strokeRect(frame.left - 0.5, frame.top - 0.5, frame.right - frame.left + 1, frame.bottom - frame.top + 1);
  context.fillStyle = muted;
  const across = ticks(xRange);
  context.textAlign = 'center';
  context.textBaseline = 'top';
  for (const value of across.values) {
    const x = frame.x(value);
    context.fillRect(x - 0.5, frame.bottom, 1, 4);
    context.fillText(value.toFixed(across.decimals), x, frame.bottom + 6);
  }
  const up = ticks(yRange);
  context.textAlign = 'right';
  context.textBaseline = 'middle';
  for (const value of up.values) {
    const y = frame.y(value);
    context.fillRect(frame.left - 4, y - 0.5, 4, 1);
    context.fillText(value.toFixed(up.decimals), frame.left - 7, y);
  }
  context.fillStyle = ink;
  context.font = `600 ${font}`;
  context.textAlign = 'center';
  context.textBaseline = 'alphabetic';
  context.fillText(xName, (frame.left + frame.right) / 2, frame.bottom + 36, frame.right - frame.left);
  context.save();
  context.translate(14, (frame.top + frame.bottom) / 2);
  context.rotate(-Math.PI / 2);
  context.textBaseline = 'middle';
  context.fillText(yName, 0, 0, frame.bottom - frame.top);
  context.restore();
  context.font = font;
}

/** A range to draw values in: their extent, widened when it is a single value. */
function valueRange(extent: [number, number] | undefined): [number, number] {
  if (!extent) return [0, 1];
  const [low, high] = extent;
  if (high > low) return extent;
  const pad = Math.abs(low) * 0.05 || 0.5;
  return [low - pad, high + pad];
}

/** The heat map of the surface's first `computed` points (whole rows first, as they are computed). */
function drawHeatMap(canvas: HTMLCanvasElement, surface: Surface, computed: number, width: number): Frame {
  const xs = surface.x.values;
  const ys = surface.y!.values;
  const plotHeight = Math.round(Math.min(380, Math.max(200, (width - 78) * 0.72)));
  const scale = valueRange(surface.extent);
  const barTop = 10 + plotHeight + 50;
  const context = prepare(canvas, width, barTop + 12 + 44);
  const xRange = [xs[0]!, xs.at(-1)!] as const;
  const yRange = [ys[0]!, ys.at(-1)!] as const;
  const frame = frameFor(width, plotHeight, xRange, yRange);
  // each grid point's cell reaches halfway to its neighbours (half a cell at the edges)
  const edges = (count: number, start: number, end: number) =>
    Array.from({ length: count + 1 }, (_, k) => Math.round(start + ((end - start) * Math.min(Math.max(k - 0.5, 0), count - 1)) / (count - 1)));
  const columns = edges(xs.length, frame.left, frame.right);
  const rows = edges(ys.length, frame.bottom, frame.top);
  for (let j = 0; j < ys.length; j++) {
    for (let i = 0; i < xs.length && j * xs.length + i < computed; i++) {
      const value = surface.values[j * xs.length + i]!;
      context.fillStyle = Number.isNaN(value) ? noAnswer : `rgb(${surfaceColour((value - scale[0]) / (scale[1] - scale[0])).join(' ')})`;
      context.fillRect(columns[i]!, rows[j + 1]!, columns[i + 1]! - columns[i]!, rows[j]! - rows[j + 1]!);
    }
  }
  drawAxes(context, frame, surface.x.name, xRange, surface.y!.name, yRange);
  // the colour scale under the plot: the output's values from its smallest to its largest here
  const barWidth = frame.right - frame.left;
  for (let k = 0; k < barWidth; k++) {
    context.fillStyle = `rgb(${surfaceColour(k / (barWidth - 1)).join(' ')})`;
    context.fillRect(frame.left + k, barTop, 1, 12);
  }
  const colourFrame = frameFor(width, 0, scale, [0, 1]);
  const legend = ticks(scale);
  context.fillStyle = muted;
  context.textAlign = 'center';
  context.textBaseline = 'top';
  for (const value of legend.values) {
    const x = colourFrame.x(value);
    context.fillRect(x - 0.5, barTop + 12, 1, 4);
    context.fillText(value.toFixed(legend.decimals), x, barTop + 18);
  }
  context.fillStyle = ink;
  context.font = `600 ${font}`;
  context.textAlign = 'right';
  context.textBaseline = 'middle';
  context.fillText(surface.output, frame.left - 8, barTop + 6, frame.left - 10);
  context.font = font;
  return frame;
}

/** The curve through the surface's first `computed` points. */
/** A ring where the inputs on screen are (a line at the input's value, for a curve). */
function drawMarker(context: CanvasRenderingContext2D, frame: Frame, surface: Surface, inputs: Record<string, number>): void {
  const x = frame.x(inputs[surface.x.name]!);
  context.save();
  if (surface.y) {
    const y = frame.y(inputs[surface.y.name]!);
    for (const [colour, width] of [
      ['white', 4],
      [ink, 1.5],
    ] as const) {
      context.strokeStyle = colour;
      context.lineWidth = width;
      context.beginPath();
      context.arc(x, y, 7, 0, 2 * Math.PI);
      context.stroke();
    }
  } else {
    context.strokeStyle = ink;
    context.setLineDash([5, 3]);
    context.beginPath();
    context.moveTo(x, frame.top);
    context.lineTo(x, frame.bottom);
    context.stroke();
  }
  context.restore();
}

function drawCurve(canvas: HTMLCanvasElement, surface: Surface, computed: number, width: number): Frame {
  const xs = surface.x.values;
  const plotHeight = Math.round(Math.min(300, Math.max(180, (width - 78) * 0.5)));
  const context = prepare(canvas, width, 10 + plotHeight + 46);
  const xRange = [xs[0]!, xs.at(-1)!] as const;
  const yRange = valueRange(surface.extent);
  const frame = frameFor(width, plotHeight, xRange, yRange);
  drawAxes(context, frame, surface.x.name, xRange, surface.output, yRange);
  context.strokeStyle = '#2a6f97';
  context.lineWidth = 2.5;
  context.beginPath();
  let drawing = false; // a gap where no rule fires
  xs.slice(0, computed).forEach((x, i) => {
    const value = surface.values[i]!;
    if (Number.isNaN(value)) {
      drawing = false;
      return;
    }
    if (drawing) context.lineTo(frame.x(x), frame.y(value));
    else context.moveTo(frame.x(x), frame.y(value));
    drawing = true;
  });
  context.stroke();
  return frame;
}
