// The "Optimise" panel: tunes the agent on the screen from the feedback its evaluations got
// (POST /agent/:id/optimize, docs/LEARNING.md), shows the estimated before/after and every number
// that moved, with a progress bar fed by the worker's progress broadcasts. A "simulate" button
// produces explored evaluations with feedback from a made-up rule, so there is something to learn;
// it rates them under its own metric, so they never mix with the ratings a person gives (`rating`).
import { FuzzyApiError } from '../src/client/index.js';
import type { Inputs } from '../src/engine/types.js';
import type { Agent, OptimizeResult } from '../src/schema/index.js';
import { OPTIMIZE_PROGRESS } from '../src/sw/messages.js';
import { formatNumber } from './draw.js';
import type { DemoContext } from './main.js';

const SIMULATED_DINERS = 200;
const EXPLORATION = 0.15;
const SIMULATED_METRIC = 'simulated rating';

function element<K extends keyof HTMLElementTagNameMap>(tag: K, text = '', className = ''): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/**
 * The made-up diners the agent never sees: thriftier than the sample agent, they rate 5 when the tip
 * is what they think fair (1% plus 1.2% per point of service plus 0.4% per point of food) and one
 * star less per 3% off.
 */
function simulatedRating(inputs: Inputs, tip: number): number {
  const fair = 1 + 1.2 * (inputs.service ?? 5) + 0.4 * (inputs.food ?? 5);
  return Math.min(5, Math.max(1, 5 - Math.abs(tip - fair) / 3));
}

function describeChange(change: OptimizeResult['changes'][number], agent: Agent): string {
  if (change.kind === 'weight') return `rule ${change.rule + 1} (“${agent.rules[change.rule]}”): weight`;
  const side = change.side === 'inputs' ? 'input' : 'output';
  return `${side} ${change.variable} · ${change.set} · point ${change.point + 1}`;
}

export function mountOptimizePanel(container: HTMLElement, context: DemoContext): void {
  container.replaceChildren();
  const heading = element('h2');
  heading.append(element('span', '5', 'step'), ' Learn from feedback ', element('small', 'tune the numbers to what the feedback rewards'));
  const intro = element(
    'p',
    'fuzzbox can tune this agent from the feedback its evaluations got: it moves the output sets and the rules’ weights ' +
      '(and, if you tick the box, the input sets) where the feedback says answers went better, keeping every variable, set and rule. ' +
      'It learns from evaluations whose answers were varied on purpose (explored); “Simulate” makes 200 of them, rated by made-up diners whose idea of a fair tip the agent never sees. ' +
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

  const simulate = element('button', `Simulate ${SIMULATED_DINERS} diners`, 'quiet');
  const preview = element('button', 'Preview', 'quiet');
  const optimise = element('button', 'Optimise and save');
  for (const button of [simulate, preview, optimise]) button.type = 'button';

  const controls = element('div');
  controls.style.cssText = 'display:flex;flex-wrap:wrap;gap:10px;align-items:center;margin:10px 0';
  const metricLabel = element('label', 'Metric ');
  metricLabel.append(metric);
  controls.append(metricLabel, goal, inputsLabel, simulate, preview, optimise);

  const progress = element('progress');
  progress.style.cssText = 'width:100%';
  progress.hidden = true;
  const message = element('p', '', 'small');
  message.setAttribute('role', 'status');
  const result = element('div');
  container.append(heading, intro, controls, progress, message, result);

  let running: string | null = null;
  // The worker reports progress of every optimisation on this channel; only ours moves the bar.
  new BroadcastChannel(OPTIMIZE_PROGRESS).addEventListener('message', (event: MessageEvent<{ agentID: string; done: number; total: number }>) => {
    if (event.data.agentID !== running) return;
    progress.max = event.data.total;
    progress.value = event.data.done;
  });

  const busy = (on: boolean) => {
    for (const button of [simulate, preview, optimise]) button.disabled = on;
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
      const situations = Array.from({ length: SIMULATED_DINERS }, () => ({ service: 10 * Math.random(), food: 10 * Math.random() }));
      const evaluations = await context.client.evaluateBatch(agent.id, situations, { explore: EXPLORATION });
      progress.max = evaluations.length;
      let posted = 0;
      await Promise.all(
        evaluations.map(async ({ outputs, evaluationID }, i) => {
          const tip = outputs.tip;
          if (tip === undefined) return;
          await context.client.postFeedback(evaluationID, { [SIMULATED_METRIC]: simulatedRating(situations[i]!, tip) });
          progress.value = ++posted;
        }),
      );
      metric.value = SIMULATED_METRIC;
      say(`${posted} explored evaluations rated by simulated diners (metric “${SIMULATED_METRIC}”). Now preview or optimise.`);
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
    say(dryRun ? 'Looking for better numbers…' : 'Optimising…');
    try {
      const answer = await context.client.optimize(agent.id, {
        metric: metric.value,
        goal: goal.value as 'maximize' | 'minimize',
        dryRun,
        tuneInputs: inputsBox.checked,
      });
      showResult(answer, agent);
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
  optimise.addEventListener('click', () => void run(false));

  function showResult(answer: OptimizeResult, agent: Agent): void {
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
    const table = element('table', '', 'history');
    const head = element('tr');
    for (const title of ['what moved', 'from', 'to']) head.append(element('th', title));
    table.append(head);
    for (const change of answer.changes) {
      const row = element('tr');
      row.append(element('td', describeChange(change, agent)), element('td', formatNumber(change.from)), element('td', formatNumber(change.to)));
      table.append(row);
    }
    result.append(table, element('p', 'Estimates are kernel-weighted averages of the logged feedback near each answer (docs/LEARNING.md): a guide, not a promise.', 'small'));
  }

  context.onAgentChange(() => {
    if (running === null) result.replaceChildren();
  });
}
