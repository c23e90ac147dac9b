// Each output's spread for autopilot's draws (src/learn/spread.ts): wide where exploring the output
// costs little, narrower (down to NARROWEST_SPREAD) where the metric bends sharply, from the log's own draws.
import { describe, expect, it } from 'vitest';
import { compileAgent, evaluate } from '../../src/engine/index.js';
import type { AgentDefinition } from '../../src/engine/types.js';
import { columnsOf, type LoggedEvaluation } from '../../src/learn/dataset.js';
import { exploreTruncated, NARROWEST_SPREAD, WIDEST_SPREAD } from '../../src/learn/policy.js';
import { gaussian, seededRandom } from '../../src/learn/random.js';
import { costSpread, evidenceSpread, SPREAD_COST, SPREAD_DRAWS, spreadFor, WIDE_DRAWS } from '../../src/learn/spread.js';
import { standardDeviation } from '../../src/learn/statistics.js';

// two outputs in [0, 10]; the metric is best at the agent's answers and bends by its own amount along each
const agent: AgentDefinition = {
  inputs: { heat: { low: [0, 10], high: [0, 10] } },
  outputs: { sharp: { low: [0, 0, 10], high: [0, 10, 10] }, flat: { low: [0, 0, 10], high: [0, 10, 10] } },
  rules: ['IF heat IS low THEN sharp IS low, flat IS high', 'IF heat IS high THEN sharp IS high, flat IS low'],
};

/** The metric: the situation's own level, minus `bend` × (sharp's draw in shares of its range)², minus `flatBend` × flat's. */
function logOf(count: number, seed: number, bend: number, flatBend: number, noise = 1, spread = WIDEST_SPREAD): LoggedEvaluation[] {
  const compiled = compileAgent(agent);
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const heat = 10 * random();
    const input = { heat };
    const { crisp } = evaluate(compiled, input);
    const { returned, density } = exploreTruncated(crisp, compiled.outputs, spread, random);
    const sharpMiss = (returned.sharp! - crisp.sharp!) / 10;
    const flatMiss = (returned.flat! - crisp.flat!) / 10;
    const metric = 20 + 3 * heat - bend * sharpMiss ** 2 - flatBend * flatMiss ** 2 + noise * gaussian(random);
    return { input, crisp, returned, density, metric };
  });
}

const columns = (log: readonly LoggedEvaluation[]) => columnsOf(log, ['heat'], ['sharp', 'flat']);

describe('the spread of autopilot’s draws', () => {
  it('narrows the output where the metric bends sharply, and keeps the one whose exploring costs little wide', async () => {
    for (const seed of [1, 2, 3]) {
      const spread = await costSpread(columns(logOf(2000, seed, 2000, 0)), compileAgent(agent));
      expect(spread.sharp, `seed ${seed}`).toBe(NARROWEST_SPREAD);
      expect(spread.flat, `seed ${seed}`).toBe(WIDEST_SPREAD);
    }
  });

  it('sets the spread at which exploring costs SPREAD_COST of the metric’s standard deviation', async () => {
    // a bend between the ends: exploring at spread σ costs bend × σ² per evaluation (the draws are
    // in shares of the range), so the spread is √(budget / bend), with the bend one standard error gentler
    for (const seed of [4, 5]) {
      const log = logOf(4000, seed, 0, 20, 0.3);
      const budget = SPREAD_COST * standardDeviation(Float64Array.from(log, ({ metric }) => metric));
      const expected = Math.sqrt(budget / 20);
      expect(expected).toBeGreaterThan(NARROWEST_SPREAD);
      expect(expected).toBeLessThan(WIDEST_SPREAD);
      const { flat } = await costSpread(columns(log), compileAgent(agent));
      expect(flat! / expected, `seed ${seed}`).toBeGreaterThan(1);
      expect(flat! / expected, `seed ${seed}`).toBeLessThan(1.05);
    }
  });

  it('the cost stays at WIDEST_SPREAD with fewer than SPREAD_DRAWS draws, and is not moved by one huge outcome', async () => {
    const few = await spreadFor(columns(logOf(SPREAD_DRAWS - 1, 6, 2000, 0)), compileAgent(agent));
    expect(few).toEqual({ sharp: WIDEST_SPREAD, flat: WIDEST_SPREAD });
    const log = logOf(2000, 7, 2000, 0);
    const wild = log.map((entry, i) => (i === 1000 ? { ...entry, metric: entry.metric - 1e6 } : entry));
    expect(await costSpread(columns(wild), compileAgent(agent))).toEqual(await costSpread(columns(log), compileAgent(agent)));
  });

  it('narrows every output as autopilot’s draws accumulate: WIDEST_SPREAD × WIDE_DRAWS / draws, down to NARROWEST_SPREAD', async () => {
    expect(evidenceSpread(WIDE_DRAWS)).toBe(WIDEST_SPREAD);
    expect(evidenceSpread(2 * WIDE_DRAWS)).toBeCloseTo(WIDEST_SPREAD / 2, 12);
    expect(evidenceSpread(100 * WIDE_DRAWS)).toBe(NARROWEST_SPREAD);
    // where the metric is flat the cost allows the widest: the evidence narrows it all the same;
    // where it bends sharply, the cost narrows it further
    for (const draws of [600, 1000]) {
      const log = logOf(draws, 8, 2000, 0);
      const spread = await spreadFor(columns(log), compileAgent(agent));
      const cost = await costSpread(columns(log), compileAgent(agent));
      expect(cost.flat).toBe(WIDEST_SPREAD);
      expect(spread.flat).toBeCloseTo((WIDEST_SPREAD * WIDE_DRAWS) / draws, 12);
      expect(spread.sharp).toBe(Math.min(cost.sharp!, spread.flat!));
    }
  });
});
