// The public input types against what the service really reads. These assertions are checked by
// the type check (`tsc -p tsconfig.json`, part of `npm test`); at run time they only have to run.
import type { z } from 'zod';
import { describe, expectTypeOf, it } from 'vitest';
import { compileAgent, type AgentDefinition, type Inputs } from '../../src/engine/index.js';
import { FuzzyClient, type AgentInput, type OptimizeInput } from '../../src/client/index.js';
import type { agentBodySchema, optimizeBodySchema } from '../../src/schema/index.js';

/** The same type with every `readonly` removed, arrays and pairs (a range, a discrete term's point) included. */
type Writable<T> = T extends readonly [infer First, infer Second]
  ? [Writable<First>, Writable<Second>]
  : T extends readonly (infer Item)[]
    ? Writable<Item>[]
    : T extends object
      ? { -readonly [K in keyof T]: Writable<T[K]> }
      : T;

const fan = {
  name: 'fan',
  inputs: { temperature: { cold: [0, 10, 20], hot: [10, 20, 30] } },
  outputs: { speed: { slow: [0, 25, 50], fast: [50, 75, 100] } },
  rules: ['IF temperature IS cold THEN speed IS slow'],
} as const;

describe('public input types', () => {
  it('AgentInput is exactly the body agentBodySchema reads, made read-only', () => {
    expectTypeOf<z.input<typeof agentBodySchema>>().toExtend<AgentInput>();
    expectTypeOf<Writable<AgentInput>>().toExtend<z.input<typeof agentBodySchema>>();
  });

  it('OptimizeInput is what optimizeBodySchema reads (dryRun and tuneInputs optional)', () => {
    expectTypeOf<OptimizeInput>().toEqualTypeOf<z.input<typeof optimizeBodySchema>>();
    expectTypeOf<{ metric: 'profit'; goal: 'maximize' }>().toExtend<OptimizeInput>();
  });

  it('the client and the engine take `as const` agents, frozen data and AgentDefinition', () => {
    const client = new FuzzyClient({ baseURL: 'http://localhost/' });
    expectTypeOf(client.createAgent).toBeCallableWith(fan);
    expectTypeOf(client.updateAgent).toBeCallableWith('id', fan);
    const definition: AgentDefinition = fan;
    expectTypeOf(client.createAgent).toBeCallableWith({ ...definition, name: 'fan' });
    expectTypeOf(client.createAgent).toBeCallableWith(Object.freeze({ ...fan }));
    expectTypeOf(compileAgent).toBeCallableWith(fan);
    expectTypeOf(client.evaluateBatch).toBeCallableWith('id', [{ temperature: 1 }] as const);
    expectTypeOf(client.postFeedback).toBeCallableWith('id', { comfort: 4 } as const);
    expectTypeOf<Readonly<{ temperature: 1 }>>().toExtend<Inputs>();
  });
});
