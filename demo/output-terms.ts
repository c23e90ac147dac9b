// An output's terms as the answer chart draws them and the page explains them: fuzzy sets by their
// shape, Takagi–Sugeno terms by their value (a constant) or their formula (a linear term), and a
// weighted output's answer in words: each reached term's value and weight, and their mean or sum.
import { setShape } from '../src/engine/index.js';
import type { Polygon, SetDefinition, TermDefinition } from '../src/engine/types.js';
import type { AgentBody } from '../src/schema/index.js';
import { coloursOf, formatNumber, isBar, type OutputTerm } from './draw.js';

type Variable = AgentBody['outputs'][string];
type LinearTerm = Extract<TermDefinition, { type: 'linear' }>;

const isTerm = (definition: SetDefinition | TermDefinition): definition is TermDefinition => !Array.isArray(definition);
const isLinear = (definition: SetDefinition | TermDefinition): definition is LinearTerm => isTerm(definition) && definition.type === 'linear';

export function outputTerms(variable: Variable, range: readonly [number, number]): Record<string, OutputTerm> {
  return Object.fromEntries(
    Object.entries(variable).map(([term, definition]): [string, OutputTerm] => {
      if (isLinear(definition)) return [term, { linear: true }];
      if (isTerm(definition) && definition.type === 'constant') return [term, { value: definition.value }];
      return [term, { shape: setShape(definition, range) }];
    }),
  );
}

/** The chart's span: the output's range, widened to its constants and to the answer, which a weighted mean may put beyond it. */
export function chartRange(range: readonly [number, number], terms: Record<string, OutputTerm>, answer: number | undefined): [number, number] {
  const values = Object.values(terms).flatMap((term) => ('value' in term ? [term.value] : []));
  if (answer !== undefined) values.push(answer);
  return [Math.min(range[0], ...values), Math.max(range[1], ...values)];
}

/** `−0.912·input1 + 2.517·input2 + 0.061`: a linear term as its formula, zero coefficients left out. */
export function linearFormula(term: LinearTerm): string {
  const parts = Object.entries(term.coefficients)
    .filter(([, coefficient]) => coefficient !== 0)
    .map(([input, coefficient]) => ({ size: `${Math.abs(coefficient)}·${input}`, negative: coefficient < 0 }));
  if (term.constant !== undefined && term.constant !== 0) parts.push({ size: String(Math.abs(term.constant)), negative: term.constant < 0 });
  if (parts.length === 0) return '0';
  return parts.map(({ size, negative }, index) => (index === 0 ? (negative ? `−${size}` : size) : `${negative ? '−' : '+'} ${size}`)).join(' ');
}

/** The reached terms of a weighted output, strongest first: each one's value z and weight w (its bar). */
export function weighedTerms(clipped: Record<string, Polygon>): Array<{ term: string; value: number; weight: number }> {
  return Object.entries(clipped)
    .filter(([, polygon]) => isBar(polygon))
    .map(([term, polygon]) => ({ term, value: polygon[0]![0], weight: Math.max(...polygon.map(([, w]) => w)) }))
    .sort((a, b) => b.weight - a.weight);
}

/** Terms named one by one in the sentence; the rest are counted. */
const namedInWords = 5;

/** How a weighted output's answer came about, in one sentence. */
export function weightedWords(output: string, clipped: Record<string, Polygon>, answer: number, sum: boolean): string {
  const reached = weighedTerms(clipped);
  const named = reached.slice(0, namedInWords).map(({ term, value, weight }) => `“${term}” ${formatNumber(value)} with weight ${weight.toFixed(2)}`);
  const rest = reached.length - named.length;
  const listed = rest > 0 ? `${named.join(', ')} and ${rest} more` : named.length > 1 ? `${named.slice(0, -1).join(', ')} and ${named.at(-1)}` : named[0];
  const how = sum ? 'their weighted sum, Σ weight × value' : 'their weighted mean, Σ weight × value ÷ Σ weight';
  return `The rules reached ${listed}. Each term is a value, not a shape: ${output} is ${how} = ${formatNumber(answer)}.`;
}

/**
 * The list of an output's linear terms under its chart: each one's formula and, when the
 * evaluation reached it, its value there. Undefined when the output has none.
 */
export function linearTermList(variable: Variable, clipped: Record<string, Polygon>): HTMLElement | undefined {
  const linear = Object.entries(variable).filter((entry): entry is [string, LinearTerm] => isLinear(entry[1]));
  if (linear.length === 0) return undefined;
  const reached = new Map(weighedTerms(clipped).map((bar) => [bar.term, bar]));
  const colours = coloursOf(Object.keys(variable));
  const details = document.createElement('details');
  details.className = 'linear-terms small';
  details.open = linear.length <= 6;
  const summary = document.createElement('summary');
  summary.textContent = `${linear.length} linear term${linear.length === 1 ? '' : 's'}: a value computed from the inputs, drawn where it falls`;
  const list = document.createElement('ul');
  for (const [term, definition] of linear) {
    const item = document.createElement('li');
    const name = document.createElement('b');
    name.textContent = term;
    name.style.color = colours.get(term)!;
    const bar = reached.get(term);
    item.append(name, ` = ${linearFormula(definition)}`, bar ? ` = ${formatNumber(bar.value)} here (weight ${bar.weight.toFixed(2)})` : ' (not reached)');
    list.append(item);
  }
  details.append(summary, list);
  return details;
}
