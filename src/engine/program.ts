// The compiled form of an agent that evaluation runs on, internal to the engine: one layout per
// stage of the pipeline, each built and run by its own module, all immutable but for the code
// generated.ts writes out once the agent has served enough calls (see scratch.ts for the
// memory an evaluation writes).

import type { ActivationLayout } from './activation.js';
import type { OutputPlans } from './compile.js';
import type { AggregationStages } from './aggregation.js';
import type { FuzzificationLayout } from './fuzzification.js';
import type { Generated } from './generated.js';
import type { Trapezoid } from './shape.js';

export interface Program extends AggregationStages {
  readonly fuzzification: FuzzificationLayout;
  readonly activation: ActivationLayout;
  /** each output's method (exact, weighted, integral), its plan and default */
  readonly outputs: OutputPlans;
  readonly outputNames: readonly string[];
  /** output o owns output sets outputSetStart[o] .. outputSetStart[o + 1] − 1 */
  readonly outputSetStart: Int32Array;
  readonly outputSetNames: readonly string[];
  /** each output set's shape within its output's range (on the exact path) */
  readonly outputShapes: readonly Trapezoid[];
  /** the rule loop written out as code, once made */
  readonly generated: Generated;
}
