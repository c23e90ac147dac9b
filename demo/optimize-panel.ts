// The "Optimize" panel: tunes the agent on the screen from the feedback its evaluations got
// (POST /agent/:id/optimize, docs/LEARNING.md), says in words what moved and what it does to the
// answer on screen, lists every number that moved, with a progress bar fed by the worker's progress
// broadcasts. A "simulate" button produces explored evaluations of whatever agent is on screen,
// rated by a made-up rule over its own inputs and outputs, so there is something to learn; it rates
// them under its own metric, so they never mix with the ratings a person gives (`rating`).
import { FuzzyApiError } from '../src/client/index.js';
import { compileAgent, evaluate, type CompiledAgent } from '../src/engine/index.js';
import type { AgentDefinition, Inputs, Outputs } from '../src/engine/types.js';
import type { Agent, OptimizeResult } from '../src/schema/index.js';
import { changedNumber, describeChange as changeInWords } from '../src/learn/tuning.js';
import { OPTIMIZE_PROGRESS } from '../src/sw/messages.js';
import { formatNumber } from './draw.js';
import type { DemoContext } from './main.js';

const SIMULATED_USERS = 200;
const EXPLORATION = 0.15;
export const SIMULATED_METRIC = 'simulated rating';

function element<K extends keyof HTMLElementTagNameMap>(tag: K, text = '', className = ''): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/**
 * The made-up users the agent never sees. Their right value of each output grows with the inputs
 * (the first input counts three times as much as each other one), from 5% to 55% of the output's
 * range: thriftier than the sample tipping agent. They rate 5 for the right value and one star less
 * per tenth of the range off, never below 1; with several outputs, the mean.
 */
export function simulatedRating(agent: CompiledAgent, inputs: Inputs, outputs: Outputs): number | undefined {
  const names = Object.keys(agent.inputs);
  const weights = names.map((_, index) => (index === 0 ? 3 : 1));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const level =
    names.reduce((sum, name, index) => {
      const [min, max] = agent.inputs[name]!.range;
      return sum + weights[index]! * (max > min ? (inputs[name]! - min) / (max - min) : 0.5);
    }, 0) / total;
  const ratings = Object.entries(agent.outputs).flatMap(
    ([
      name,
      {
        range: [min, max],
      },
    ]) => {
      const answer = outputs[name];
      if (answer === undefined) return [];
      const right = min + (max - min) * (0.05 + 0.5 * level);
      return [Math.min(5, Math.max(1, 5 - Math.abs(answer - right) / ((max - min) / 10 || 1)))];
    },
  );
  return ratings.length === 0 ? undefined : ratings.reduce((sum, rating) => sum + rating, 0) / ratings.length;
}

/** Inputs drawn uniformly over each input's range. */
export function randomSituation(agent: CompiledAgent): Inputs {
  return Object.fromEntries(
    Object.entries(agent.inputs).map(
      ([
        name,
        {
          range: [min, max],
        },
      ]) => [name, min + (max - min) * Math.random()],
    ),
  );
}

const list = (items: string[]) => (items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items.at(-1)}` : (items[0] ?? ''));
const valuesOf = (values: Readonly<Record<string, number>>) =>
  Object.entries(values)
    .map(([name, value]) => `${name} ${formatNumber(value)}`)
    .join(', ');

/** What a new version means for the inputs on screen: each output's answer before and after, in one sentence. */
export function answerOnScreen(before: AgentDefinition, after: AgentDefinition, inputs: Inputs): string {
  const crispBefore = evaluate(compileAgent(before), inputs).crisp;
  const crispAfter = evaluate(compileAgent(after), inputs).crisp;
  const moves = Object.keys(before.outputs).map((name) => {
    const from = crispBefore[name];
    const to = crispAfter[name];
    if (from === undefined || to === undefined) return `${name} ${to === undefined ? 'gets no answer' : `gets ${formatNumber(to)}`}`;
    return formatNumber(from) === formatNumber(to) ? `${name} stays at ${formatNumber(to)}` : `${name} goes from ${formatNumber(from)} to ${formatNumber(to)}`;
  });
  return `For the inputs on screen (${valuesOf(inputs)}), the answer ${list(moves)}.`;
}

/**
 * What an optimization did, in words: the answer for the inputs on screen before and after, each
 * set that moved (which way, wider or narrower), each rule whose weight changed (and what that
 * does), and why: the estimate of the metric it raised or lowered.
 */
export function explainOptimization(answer: OptimizeResult, before: AgentDefinition, inputs: Inputs): string[] {
  const after = answer.definition;
  const sentences: string[] = [answerOnScreen(before, after, inputs)];

  const sets = new Map<string, { side: 'inputs' | 'outputs'; variable: string; set: string }>();
  for (const change of answer.changes) {
    if (change.kind === 'set') sets.set(`${change.side} ${change.variable} ${change.set}`, change);
  }
  for (const { side, variable, set } of sets.values()) {
    // a change names a point of a set, so both are points (tuning leaves terms named by their kind alone)
    const from = before[side][variable]![set] as readonly number[];
    const to = after[side][variable]![set] as readonly number[];
    const shift = mean(to) - mean(from);
    const widthFrom = from.at(-1)! - from[0]!;
    const widthTo = to.at(-1)! - to[0]!;
    // said as shown: a centre that moved less than the shown precision has not moved for the reader
    const [centreFrom, centreTo] = [formatNumber(mean(from)), formatNumber(mean(to))];
    const moved = centreFrom !== centreTo;
    const parts: string[] = [];
    if (moved) parts.push(`moved ${shift < 0 ? 'down' : 'up'} by ${formatNumber(Math.abs(shift))}`);
    const widened = Math.abs(widthTo - widthFrom) > 1e-9 ? (widthTo < widthFrom ? 'narrower' : 'wider') : undefined;
    if (widened) parts.push(`got ${widened} (${formatNumber(widthFrom)} → ${formatNumber(widthTo)} wide)`);
    const meaning =
      side === 'outputs'
        ? moved
          ? `so the rules that conclude “${variable} IS ${set}” now pull ${variable} toward ${centreTo} instead of ${centreFrom}`
          : `so the rules that conclude “${variable} IS ${set}” still pull ${variable} toward ${centreTo}, ` +
            (widened ? `and a ${widened} set weighs ${widened === 'wider' ? 'more' : 'less'} in the balance` : 'with a new shape')
        : moved
          ? `so it now describes ${variable} values around ${centreTo} instead of ${centreFrom}`
          : `so it still describes ${variable} values around ${centreTo}, ${widened ? `over a ${widened} span` : 'with a new shape'}`;
    sentences.push(`The ${side === 'outputs' ? 'output' : 'input'} set “${set}” of ${variable} ${list(parts) || 'changed shape'}: ${meaning}.`);
  }
  // a set named by its kind: each number that moved, in words
  const terms = answer.changes.filter((change) => change.kind === 'term');
  if (terms.length > 0) sentences.push(`These numbers moved: ${list(terms.map((change) => changeInWords(change, formatNumber)))}.`);
  for (const change of answer.changes) {
    if (change.kind !== 'weight') continue;
    const ratio = change.to / change.from;
    const effect = ratio < 0.5 ? 'far less' : ratio < 1 ? 'less' : ratio > 2 ? 'far more' : 'more';
    sentences.push(
      `Rule ${change.rule + 1}, “${before.rules[change.rule]}”, now counts ${formatNumber(change.to)} instead of ${formatNumber(change.from)}: ` +
        `it fires as before, but its conclusion weighs ${effect} in the answer.`,
    );
  }
  const improved = answer.goal === 'maximize' ? answer.after > answer.before : answer.after < answer.before;
  sentences.push(
    improved
      ? `Why: on the feedback so far, these numbers should ${answer.goal === 'maximize' ? 'raise' : 'lower'} the mean ${answer.metric} ` +
          `from about ${formatNumber(answer.before)} to ${formatNumber(answer.after)}. That is an estimate from evaluations with nearby inputs and answers, a guide rather than a promise.`
      : `No numbers were found that the feedback says would do better on ${answer.metric}.`,
  );
  return sentences;
}

function describeChange(change: OptimizeResult['changes'][number], agent: Agent): string {
  if (change.kind === 'weight') return `rule ${change.rule + 1} (“${agent.rules[change.rule]}”): weight`;
  const side = change.side === 'inputs' ? 'input' : 'output';
  if (change.kind === 'set') return `${side} ${change.variable} · ${change.set} · point ${change.point + 1}`;
  return `${side} ${changedNumber(change)}`;
}

const mean = (points: readonly number[]) => points.reduce((sum, point) => sum + point, 0) / points.length;

export function mountOptimizePanel(container: HTMLElement, context: DemoContext): void {
  container.replaceChildren();
  const heading = element('h2');
  heading.append(element('span', '5', 'step'), ' Learn from feedback ', element('small', 'tune the numbers to what the feedback rewards'));
  const intro = element(
    'p',
    'fuzzbox can tune this agent from the feedback its evaluations got: it moves the output sets and the rules’ weights ' +
      '(and, if you tick the box, the input sets) where the feedback says answers went better, keeping every variable, set and rule. ' +
      `It learns from evaluations whose answers were varied on purpose (explored); “Simulate” makes ${SIMULATED_USERS} of them, rated by made-up users ` +
      'with their own idea of the right answer, one the agent never sees (it grows with the inputs, the first one most). ' +
      `Their ratings are kept under the metric “${SIMULATED_METRIC}”, apart from your own 1–5 ratings (metric “rating”).`,
    'small',
  );

  const metric = element('input');
  metric.value = SIMULATED_METRIC;
  metric.size = 16;
  metric.setAttribute('aria-label', 'metric');
  const goal = element('select');
  goal.setAttribute('aria-label', 'goal');
  for (const value of ['maximize', 'minimize']) goal.append(new Option(value, value));
  const inputsBox = element('input');
  inputsBox.type = 'checkbox';
  const inputsLabel = element('label', '', 'small');
  inputsLabel.append(inputsBox, ' also move input sets');

  const simulate = element('button', `Simulate ${SIMULATED_USERS} rated answers`, 'quiet');
  const preview = element('button', 'Preview', 'quiet');
  const optimize = element('button', 'Optimize and save');
  for (const button of [simulate, preview, optimize]) button.type = 'button';

  const controls = element('div');
  controls.style.cssText = 'display:flex;flex-wrap:wrap;gap:10px;align-items:center;margin:10px 0';
  const metricLabel = element('label', 'Metric ');
  metricLabel.append(metric);
  controls.append(metricLabel, goal, inputsLabel, simulate, preview, optimize);

  const progress = element('progress');
  progress.style.cssText = 'width:100%';
  progress.hidden = true;
  const message = element('p', '', 'small');
  message.setAttribute('role', 'status');
  const result = element('div');
  container.append(heading, intro, controls, progress, message, result);

  let running: string | null = null;
  // The worker reports progress of every optimization on this channel; only ours moves the bar.
  new BroadcastChannel(OPTIMIZE_PROGRESS).addEventListener('message', (event: MessageEvent<{ agentID: string; done: number; total: number }>) => {
    if (event.data.agentID !== running) return;
    progress.max = event.data.total;
    progress.value = event.data.done;
  });

  const busy = (on: boolean) => {
    for (const button of [simulate, preview, optimize]) button.disabled = on;
    progress.hidden = !on;
    progress.removeAttribute('value'); // indeterminate until the first report
  };
  const fail = (error: unknown) => {
    message.textContent = error instanceof FuzzyApiError || error instanceof Error ? error.message : String(error);
    message.style.color = 'var(--bad)';
  };
  const say = (text: string) => {
    message.textContent = text;
    message.style.color = '';
  };

  simulate.addEventListener('click', async () => {
    const agent = context.agent();
    if (!agent) return;
    busy(true);
    try {
      const compiled = compileAgent(agent);
      const situations = Array.from({ length: SIMULATED_USERS }, () => randomSituation(compiled));
      const evaluations = await context.client.evaluateBatch(agent.id, situations, { explore: EXPLORATION });
      progress.max = evaluations.length;
      let posted = 0;
      await Promise.all(
        evaluations.map(async ({ outputs, evaluationID }, i) => {
          const rating = simulatedRating(compiled, situations[i]!, outputs);
          if (rating === undefined) return; // no rule fired: nothing to rate
          await context.client.postFeedback(evaluationID, { [SIMULATED_METRIC]: rating });
          progress.value = ++posted;
        }),
      );
      metric.value = SIMULATED_METRIC;
      say(`${posted} explored evaluations rated by simulated users (metric “${SIMULATED_METRIC}”). Now preview or optimize.`);
    } catch (error) {
      fail(error);
    } finally {
      busy(false);
    }
  });

  const run = async (dryRun: boolean) => {
    const agent = context.agent();
    if (!agent) return;
    busy(true);
    running = agent.id;
    say(dryRun ? 'Looking for better numbers…' : 'Optimizing…');
    try {
      const inputs = context.inputs();
      const answer = await context.client.optimize(agent.id, {
        metric: metric.value,
        goal: goal.value as 'maximize' | 'minimize',
        dryRun,
        tuneInputs: inputsBox.checked,
      });
      showResult(answer, agent, inputs);
      if (!dryRun) await context.reload();
    } catch (error) {
      result.replaceChildren();
      fail(error);
    } finally {
      running = null;
      busy(false);
    }
  };
  preview.addEventListener('click', () => void run(true));
  optimize.addEventListener('click', () => void run(false));

  function showResult(answer: OptimizeResult, agent: Agent, inputs: Inputs): void {
    const better = answer.goal === 'maximize' ? answer.after > answer.before : answer.after < answer.before;
    say(
      `${answer.versionID ? 'Saved as a new version' : 'Preview only: nothing saved'}. ` +
        `Learnt from ${answer.evaluationsUsed} evaluations. Estimated mean ${answer.metric}: ` +
        `${formatNumber(answer.before)} → ${formatNumber(answer.after)}${better ? '' : ' (no better numbers found)'}.`,
    );
    result.replaceChildren();
    if (answer.changes.length === 0) {
      result.append(element('p', 'Nothing moved: the current numbers are the best this feedback supports.', 'small'));
      return;
    }
    const explanation = element('div', '', 'explanation');
    explanation.append(...explainOptimization(answer, agent, inputs).map((sentence) => element('p', sentence)));
    const table = element('table', '', 'history');
    const head = element('tr');
    for (const title of ['what moved', 'from', 'to']) head.append(element('th', title));
    table.append(head);
    for (const change of answer.changes) {
      const row = element('tr');
      row.append(element('td', describeChange(change, agent)), element('td', formatNumber(change.from)), element('td', formatNumber(change.to)));
      table.append(row);
    }
    result.append(
      explanation,
      element('h3', 'Every number that moved'),
      table,
      element('p', 'Estimates are kernel-weighted averages of the logged feedback near each answer (docs/LEARNING.md): a guide, not a promise.', 'small'),
    );
  }

  // Another agent (or none) on screen: what was said about the previous one no longer applies.
  context.onAgentChange((agent) => {
    if (running !== null) return;
    result.replaceChildren();
    say('');
    simulate.disabled = agent === null || Object.keys(agent.outputs).length === 0;
  });
}
