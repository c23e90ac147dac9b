import { expect } from 'vitest';
import { evaluate, evaluateBatch, type CompiledAgent, type Inputs } from '../../src/engine/index.js';

/**
 * Each output's crisp value, single and batched, against the trace's (which always runs the stage
 * by stage loops), compared with Object.is: bit for bit, NaN and −0 included.
 */
export function expectCrispAsTraced(agent: CompiledAgent, inputs: readonly Inputs[]): void {
  const batch = evaluateBatch(agent, inputs);
  inputs.forEach((item, k) => {
    const traced = evaluate(agent, item, { trace: true }).crisp;
    const fast = evaluate(agent, item).crisp;
    expect(Object.keys(fast)).toEqual(Object.keys(traced));
    for (const name of Object.keys(traced)) {
      if (!Object.is(fast[name], traced[name]) || !Object.is(batch[k]![name], traced[name])) {
        expect.fail(`inputs ${JSON.stringify(item)}: ${name} is ${fast[name]} alone, ${batch[k]![name]} in a batch, ${traced[name]} traced`);
      }
    }
  });
}
