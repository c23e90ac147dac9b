import { evaluationCost, type CompiledAgent } from '../engine/index.js';
import { ApiError } from '../schema/errors.js';

// The work of one request is bounded before anything runs (docs/REST.md, "Cost of a request"):
// the engine bounds one evaluation in steps (about a nanosecond each here), a request costs its
// items times that plus what each item costs the service, and nothing over the budget is evaluated.

/** Steps one request may cost: about half a second of evaluation on the machine of docs/ENGINE.md. */
export const REQUEST_BUDGET = 500_000_000;
/** Steps per item beyond its evaluation: its id, its log, its part of the answer and of the write. */
export const ITEM_STEPS = 3_000;
/** Characters an answer may have; past this a batch with `?meta` is refused before anything is written. */
export const MAX_ANSWER_CHARS = 64 * 1024 * 1024;

const format = (steps: number) => Math.round(steps).toLocaleString('en-US');

/**
 * Refuses (413) a request of `items` evaluations of `compiled` that would cost more than the budget.
 * One evaluation is always allowed: the engine's size limits bound it on their own.
 */
export function checkRequestCost(compiled: CompiledAgent, items: number): void {
  const perItem = evaluationCost(compiled) + ITEM_STEPS;
  const cost = items * perItem;
  if (items <= 1 || cost <= REQUEST_BUDGET) return;
  const most = Math.max(1, Math.floor(REQUEST_BUDGET / perItem));
  throw new ApiError(
    'PayloadTooLarge',
    `this request would cost up to ${format(cost)} steps of work (${items} items × ${format(perItem)} per evaluation of this agent), ` +
      `over the ${format(REQUEST_BUDGET)} one request may cost; send at most ${most} item${most === 1 ? '' : 's'} per request ` +
      '(split the batch; docs/REST.md, "Cost of a request")',
  );
}

/** Refuses (413) an answer that would grow past MAX_ANSWER_CHARS, having `chars` so far. */
export function checkAnswerSize(chars: number, items: number, withMeta: boolean): void {
  if (chars <= MAX_ANSWER_CHARS) return;
  throw new ApiError(
    'PayloadTooLarge',
    `the answer to these ${items} items would exceed ${MAX_ANSWER_CHARS / 1024 / 1024} MiB, so nothing was stored; ` +
      (withMeta ? 'ask for fewer items per request, or leave out ?meta and read each log with GET /evaluation/:id' : 'ask for fewer items per request'),
  );
}
