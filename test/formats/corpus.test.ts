// fuzzylite's whole example corpus (../shared/fuzzylite-examples: every model as FLL, FIS and FCL
// with the outputs fuzzylite published, .fld), enumerated from the folder: each file imports,
// evaluates to its .fld, and round-trips through every format — or is refused by a format that cannot
// express it, with a FormatError naming the construct and the line holding it (the lists below), or
// is a known difference whose reason the test shows accounts for all of it (three models, below).
//
// Tolerances. fuzzylite integrates an output (Centroid, Bisector, …) by sampling `resolution`
// midpoints over the output's range, h = range / resolution apart. Where the aggregated set is
// smooth the midpoint rule errs by O(h²); where it jumps (rectangles, discrete steps, clipping by
// a discontinuous implication) a sample misplaces the jump by at most h/2, which moves the centroid
// by less than h. So an exact integral may differ from a sampled one by up to h: the tolerance is
// h = range / resolution (0.5 % of the range at 200). Weighted outputs (Takagi–Sugeno, Tsukamoto)
// have no sampling: 1e-8, the 9 printed decimals. fuzzylite fires a rule only when its activation
// is at least 1e-6; the references are evaluated with `activationThreshold: 1e-6` (the imported
// agents keep MATLAB's semantics, every rule above 0: docs/FORMATS.md).

import { describe, expect, it } from 'vitest';
import { activations, compileAgent, evaluate, membership, type CompiledAgent } from '../../src/engine/index.js';
import type { AgentDefinition, Outputs } from '../../src/engine/types.js';
import { FormatError, readModel, writeModel, type Model, type ModelFormat } from '../../src/formats/index.js';
import { sharedFiles, sharedText } from '../support/shared.js';

const formats: ModelFormat[] = ['fll', 'fis', 'fcl'];

/**
 * Constructs a format cannot express, why, and what the line the refusal names holds (the test
 * reads that line of the file itself).
 */
const CANNOT_HOLD: Readonly<Record<string, { reason: string; line: RegExp }>> = {
  rule: {
    reason: 'FIS rows cannot name an output in a condition, so fuzzylite wrote chained rules with no condition',
    line: /^[\d. ]+,[\d. ]+\([\d.]+\)\s*:\s*\d/,
  },
};

/** The models a format cannot express, exactly these, and the construct each is refused for there. */
const REFUSED: Readonly<Record<string, Partial<Record<ModelFormat, keyof typeof CANNOT_HOLD>>>> = {
  'mamdani/Laundry': { fis: 'rule' },
  'mamdani/SimpleDimmerChained': { fis: 'rule' },
  'mamdani/SimpleDimmerInverse': { fis: 'rule' },
};

/** An agent's outputs for some inputs, given the outputs fuzzylite published on the row before. */
type Evaluator = (inputs: Record<string, number>, before: Readonly<Record<string, number>>) => Outputs;

/**
 * Models that import and round-trip but whose .fld fuzzbox does not reproduce, each with its reason;
 * the test asserts the difference and that the reason accounts for all of it: the model computed
 * as fuzzylite 6 (which wrote the .fld) computes it matches.
 *
 * sugeno_tip_calculator: fuzzylite (Consequent::modify, up to 7.x) applies a conclusion's hedges to
 * the rule's activation degree in place, so they carry on to every later conclusion of the rule:
 * `THEN a IS extremely Low, b IS very Low, c IS Low` gives b very(extremely(w)) and c the same.
 * Octave, which wrote the model, and fuzzbox hedge each conclusion on its own; the .fld holds
 * fuzzylite's quirk, so the test rewrites the rules to carry the hedges and then requires a match.
 *
 * approximation: its outputs `lock-previous: true` keep the previous call's value when no rule
 * fires, and fuzzylite's exporter computed the rows in order: where no rule reaches outputFx
 * (inputX = 10) the .fld holds the row before's value, and diffFx, whose formula reads outputFx,
 * follows. An evaluation here depends only on its inputs, so the output takes its default (none);
 * with the default set to the row before's published value the model matches.
 *
 * Laundry: fuzzylite 6's MeanOfMaximum is the middle of the first plateau at the maximum; fuzzylite
 * 7's, MATLAB's and fuzzbox's the mean over every maximum. Where Detergent's aggregated set reaches
 * its maximum on two plateaus they differ; fuzzylite 6's rule, run on the aggregated set (min
 * implication, max aggregation of the rules' strengths) at fuzzylite's samples, matches.
 */
const KNOWN_DIFFERENCES: Readonly<Record<string, { reason: string; asFuzzyliteComputes: (definition: AgentDefinition) => Evaluator }>> = {
  'takagi-sugeno/octave/sugeno_tip_calculator': {
    reason: "fuzzylite carries a conclusion's hedges on to the rule's later conclusions",
    asFuzzyliteComputes: (definition) => {
      const agent = compileAgent(asFuzzylite({ ...definition, rules: definition.rules.map(carryConclusionHedges) }));
      return (inputs) => evaluate(agent, inputs).crisp;
    },
  },
  'takagi-sugeno/approximation': {
    reason: 'fuzzylite keeps a lock-previous output at the value of the row before when no rule fires',
    asFuzzyliteComputes: (definition) => {
      const fll = sharedText('fuzzylite-examples/takagi-sugeno/approximation.fll');
      return (inputs, before) => evaluate(compileAgent(asFuzzylite(lockPrevious(definition, before, fll))), inputs).crisp;
    },
  },
  'mamdani/Laundry': {
    reason: "fuzzylite 6's MeanOfMaximum is the middle of the first plateau at the maximum, not the mean over every maximum",
    asFuzzyliteComputes: (definition) => {
      const agent = compileAgent(asFuzzylite(definition));
      const resolution = resolutions(sharedText('fuzzylite-examples/mamdani/Laundry.fll'));
      // each output set's degree at fuzzylite's samples (midpoints of `resolution` cells over the range)
      const samples = Object.fromEntries(
        Object.entries(definition.outputs).map(([output, sets]) => {
          const [min, max] = agent.outputs[output]!.range;
          const n = resolution.get(output)!;
          const xs = Array.from({ length: n }, (_, i) => min + (i + 0.5) * ((max - min) / n));
          return [
            output,
            { xs, degrees: Object.fromEntries(Object.entries(sets).map(([set, points]) => [set, xs.map((x) => membership(points, [min, max], x))])) },
          ];
        }),
      );
      return (inputs) => {
        const crisp = evaluate(agent, inputs).crisp;
        // each output set's degree: the largest strength of the rules concluding it (Laundry's conclusions have no hedges)
        const reached: Record<string, Record<string, number>> = {};
        activations(agent, inputs).forEach(({ strength }, r) => {
          if (!(strength > 0)) return;
          for (const { variable, set } of agent.expandedRules[r]!.conclusions) {
            reached[variable] ??= {};
            reached[variable][set] = Math.max(reached[variable][set] ?? 0, strength);
          }
        });
        for (const [output, inferred] of Object.entries(reached)) {
          const { xs, degrees } = samples[output]!;
          // min implication, max aggregation
          const ys = xs.map((_, i) => Math.max(...Object.entries(inferred).map(([set, w]) => Math.min(w, degrees[set]![i]!))));
          crisp[output] = firstPlateauMiddle(xs, ys);
        }
        return crisp;
      };
    },
  },
};

/** fuzzylite 6's MeanOfMaximum (src/defuzzifier/MeanOfMaximum.cpp before 7.0) over its samples: the middle of the first plateau at the largest, within its 1e-6. */
function firstPlateauMiddle(xs: readonly number[], ys: readonly number[]): number {
  const equal = (a: number, b: number) => a === b || Math.abs(a - b) < 1e-6;
  let top = -1;
  let smallest = xs[0]!;
  let largest = xs.at(-1)!;
  let samePlateau = false;
  ys.forEach((y, i) => {
    if (!equal(y, top) && y > top) {
      top = y;
      smallest = largest = xs[i]!;
      samePlateau = true;
    } else if (samePlateau && equal(y, top)) largest = xs[i]!;
    else if (!equal(y, top) && y < top) samePlateau = false;
  });
  return (smallest + largest) / 2;
}

/** The outputs the FLL locks (`lock-previous: true`) default to their value on the row before, where it had one. */
function lockPrevious(definition: AgentDefinition, before: Readonly<Record<string, number>>, fll: string): AgentDefinition {
  const locked = [...fll.matchAll(/^OutputVariable:\s*(\S+)[\s\S]*?lock-previous:\s*(\w+)/gm)].filter((match) => match[2] === 'true').map((match) => match[1]!);
  const outputs = { ...definition.operators?.outputs };
  for (const name of locked) if (Number.isFinite(before[name])) outputs[name] = { ...outputs[name], default: before[name]! };
  return { ...definition, operators: { ...definition.operators, outputs } };
}

/** `THEN a IS extremely L, b IS very L, c IS L` → `THEN a IS extremely L, b IS very extremely L, c IS very extremely L`. */
function carryConclusionHedges(rule: string): string {
  const [condition, conclusions] = rule.split(' THEN ');
  let carried: string[] = [];
  const rewritten = conclusions!.split(', ').map((conclusion) => {
    const [variable, words] = conclusion.split(' IS ');
    const own = words!.split(' ');
    const set = own.pop()!;
    carried = [...own, ...carried];
    return `${variable} IS ${[...carried, set].join(' ')}`;
  });
  return `${condition} THEN ${rewritten.join(', ')}`;
}

/** The models: every .fld of the upstream layout (near-compatible/ and generated/ are copies and extras). */
const models = sharedFiles('fuzzylite-examples')
  .filter((path) => path.endsWith('.fld') && !path.includes('/near-compatible/') && !path.includes('/generated/'))
  .map((path) => path.slice('fuzzylite-examples/'.length, -'.fld'.length));

function fld(text: string): { names: string[]; rows: number[][] } {
  const [header, ...rows] = text.trim().split('\n');
  const value = (word: string) => (word === 'nan' ? NaN : word === 'inf' ? Infinity : word === '-inf' ? -Infinity : Number(word));
  return { names: header!.trim().split(/\s+/), rows: rows.map((row) => row.trim().split(/\s+/).map(value)) };
}

/** The resolution an output's integral defuzzifier samples at, from the FLL (`defuzzifier: Centroid 200`); undefined when weighted. */
function resolutions(fll: string): Map<string, number | undefined> {
  const found = new Map<string, number | undefined>();
  let output: string | undefined;
  for (const line of fll.split('\n')) {
    const variable = /^OutputVariable:\s*(\S+)/.exec(line);
    if (variable) output = variable[1];
    else if (/^\S/.test(line)) output = undefined;
    const defuzzifier = /^\s*defuzzifier:\s*(\w+)\s*(\S*)/.exec(line);
    if (output && defuzzifier) found.set(output, /^Weighted/.test(defuzzifier[1]!) ? undefined : Number(defuzzifier[2]));
  }
  return found;
}

/**
 * The inputs fuzzylite evaluated, which the .fld prints rounded to 9 decimals: its exporter samples
 * each input at min + i · range / n (n + 1 values over the variable's range), so a printed value
 * within the rounding (5e-10) of a sample is that sample. (Through a linear term of slope 75 the
 * rounding alone moves an output by 4e-8: cubic_approximator.)
 */
function exactInputs(agent: CompiledAgent, published: { names: string[]; rows: number[][] }): (row: number[]) => Record<string, number> {
  const samplers = Object.keys(agent.inputs).map((name) => {
    const column = published.names.indexOf(name);
    const [min, max] = agent.inputs[name]!.range;
    const intervals = new Set(published.rows.map((row) => row[column])).size - 1;
    const exact = (printed: number) => {
      if (intervals < 1) return printed;
      const sample = min + Math.round(((printed - min) * intervals) / (max - min)) * ((max - min) / intervals);
      return Math.abs(sample - printed) <= 5e-10 ? sample : printed;
    };
    return (row: number[]) => [name, exact(row[column]!)] as const;
  });
  return (row) => Object.fromEntries(samplers.map((sample) => sample(row)));
}

/**
 * The largest difference from the published outputs, each in units of its tolerance (≤ 1 passes);
 * `agent` gives the ranges and inputs, `evaluator` the outputs.
 */
function worstAgainst(
  agent: CompiledAgent,
  evaluator: Evaluator,
  published: { names: string[]; rows: number[][] },
  resolution: Map<string, number | undefined>,
): number {
  let worst = 0;
  const inputsOf = exactInputs(agent, published);
  let before: Record<string, number> = {};
  for (const row of published.rows) {
    const crisp = evaluator(inputsOf(row), before);
    before = Object.fromEntries(published.names.map((name, column) => [name, row[column]!]));
    for (const output of Object.keys(agent.outputs)) {
      const column = published.names.indexOf(output);
      if (column < 0) continue;
      const expected = row[column]!;
      const actual = crisp[output];
      if (Number.isNaN(expected) || !Number.isFinite(expected)) {
        if (!Object.is(actual ?? NaN, expected) && !(Number.isNaN(expected) && actual === undefined)) worst = Math.max(worst, Infinity);
        continue;
      }
      if (actual === undefined) return Infinity;
      const [min, max] = agent.outputs[output]!.range;
      const samples = resolution.get(output);
      const tolerance = samples === undefined ? 1e-8 : (max - min) / samples;
      worst = Math.max(worst, Math.abs(actual - expected) / tolerance);
    }
  }
  return worst;
}

/** fuzzylite's semantics: a rule fires when its activation is at least 1e-6. */
function asFuzzylite(definition: AgentDefinition): AgentDefinition {
  return { ...definition, operators: { ...definition.operators, activationThreshold: 1e-6 } };
}

type Outcome =
  | { imported: true; matched: boolean; worst: number; worstAsFuzzyliteComputes?: number; roundTrips: Partial<Record<ModelFormat, string>> }
  | { imported: false; construct: string; message: string };

function outcome(model: string, format: ModelFormat): Outcome {
  let read: Model;
  try {
    read = readModel(format, sharedText(`fuzzylite-examples/${model}.${format}`));
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    return { imported: false, construct: error.construct, message: error.message };
  }
  const published = fld(sharedText(`fuzzylite-examples/${model}.fld`));
  const resolution = resolutions(sharedText(`fuzzylite-examples/${model}.fll`));
  const agent = compileAgent(asFuzzylite(read.definition));
  const worst = worstAgainst(agent, (inputs) => evaluate(agent, inputs).crisp, published, resolution);
  const known = KNOWN_DIFFERENCES[model];
  const worstAsFuzzyliteComputes = known && worstAgainst(agent, known.asFuzzyliteComputes(read.definition), published, resolution);
  const roundTrips: Partial<Record<ModelFormat, string>> = {};
  for (const to of formats) {
    try {
      const back = readModel(to, writeModel(to, read));
      roundTrips[to] = JSON.stringify(back) === JSON.stringify(read) ? 'same' : 'different';
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      roundTrips[to] = `refused: ${error.message}`;
    }
  }
  return { imported: true, matched: worst <= 1, worst, worstAsFuzzyliteComputes, roundTrips };
}

describe('fuzzylite example corpus, every model in every format', () => {
  it('has the 39 models', () => expect(models.length).toBe(39));

  const table: string[] = [];
  for (const model of models) {
    for (const format of formats) {
      it(`${model}.${format}`, () => {
        const result = outcome(model, format);
        table.push(`${model}.${format}: ${JSON.stringify(result)}`);
        const refused = REFUSED[model]?.[format];
        if (refused !== undefined || !result.imported) {
          expect(result.imported ? 'imported' : result.construct, result.imported ? undefined : result.message).toBe(refused);
          if (result.imported) return;
          // the message names the line, and that line of the file holds the construct
          const line = Number(/^line (\d+): /.exec(result.message)?.[1]);
          expect(sharedText(`fuzzylite-examples/${model}.${format}`).split(/\r?\n/)[line - 1], result.message).toMatch(CANNOT_HOLD[refused!]!.line);
          return;
        }
        if (result.worstAsFuzzyliteComputes === undefined) {
          expect(result.worst, `worst difference from ${model}.fld in tolerances`).toBeLessThanOrEqual(1);
        } else {
          // a known difference: it is there, and its reason accounts for all of it
          expect(result.worst, KNOWN_DIFFERENCES[model]!.reason).toBeGreaterThan(1);
          expect(result.worstAsFuzzyliteComputes, KNOWN_DIFFERENCES[model]!.reason).toBeLessThanOrEqual(1);
        }
        for (const to of formats) {
          const trip = result.roundTrips[to]!;
          // a format may refuse what it cannot write (FIS: one method per file), naming why; else it gives the same agent
          if (trip.startsWith('refused: ')) expect(trip).toMatch(/cannot/);
          else expect(trip, `${format} → ${to} → agent`).toBe('same');
        }
      });
    }
  }
});
