// The "Autopilot" panel: the agent on screen learns by itself from the ratings its answers get
// (docs/LEARNING.md, "Autopilot"). A switch (PUT /agent/:id/autopilot; for an agent without
// `performance` it first names the simulated rating as what to maximise), a button that sends
// simulated diners (plain evaluations, the worker varies the answers itself, and a rating for
// each), the versions autopilot made with their evidence and the trials' verdicts, a chart of the
// mean rating per version over time (GET /agent/:id/performance), a rollback button per version
// (POST /agent/:id/rollback), and in words what the newest autopilot version moved and means.
import type { AutopilotState, PerformanceReport } from '../src/client/index.js';
import { compileAgent } from '../src/engine/index.js';
import { parseRule } from '../src/engine/parse.js';
import type { AgentDefinition } from '../src/engine/types.js';
import { Tuning } from '../src/learn/tuning.js';
import type { Agent, AgentBody, OptimizeResult } from '../src/schema/index.js';
import { formatNumber, palette } from './draw.js';
import type { DemoContext } from './main.js';
import { answerOnScreen, explainOptimization, randomSituation, SIMULATED_METRIC, simulatedRating } from './optimize-panel.js';

/** Diners per click: enough for a proposal (autopilot's `proposeEvery`) and its trial's first looks. */
export const DINERS = 400;
/** Diners per request: each batch is answered, rated, then the panel shows what autopilot did. */
const ROUND = 25;

type Version = PerformanceReport['versions'][number];

function element<K extends keyof HTMLElementTagNameMap>(tag: K, text = '', className = ''): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function svg(tag: string, attributes: Record<string, string | number> = {}, text?: string): SVGElement {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

const originWords: Record<string, string> = {
  created: 'made by hand',
  updated: 'edited by hand',
  optimised: 'optimized on request',
  autopilot: 'proposed by autopilot',
  'rolled back': 'rolled back',
};

const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? formatNumber(value) : '–');

/** Why a version exists, in words, with the trial's verdict for autopilot's. */
function evidenceWords(version: Version, label: (id: string) => string, state: AutopilotState): string {
  const evidence = (version.evidence ?? {}) as Record<string, any>;
  switch (version.origin) {
    case 'autopilot': {
      const gain = evidence.offPolicy?.gain;
      const estimate = gain
        ? `learnt from ${evidence.evaluationsUsed} rated answers; expected gain ${number(gain.value)} (95%: ${number(gain.low)} to ${number(gain.high)})`
        : `learnt from ${evidence.evaluationsUsed} rated answers`;
      const trial = state.trials.find((t) => t.versionID === version.id);
      const verdict = trial
        ? trial.outcome === 'adopted'
          ? `adopted: on trial it earned ${number(trial.candidate.mean)} against ${number(trial.current.mean)}`
          : trial.outcome === 'dropped'
            ? `dropped: on trial it earned ${number(trial.candidate.mean)} against ${number(trial.current.mean)}, not clearly better`
            : 'abandoned: the agent changed during its trial'
        : state.candidate?.versionID === version.id
          ? state.active
            ? `on trial: it answers ${Math.round(state.candidateShare * 100)}% of the diners until the ratings tell`
            : 'on trial, paused while autopilot is off'
          : '';
      return [estimate, verdict].filter(Boolean).join('; ');
    }
    case 'rolled back':
      return `back to ${label(String(evidence.to))}`;
    case 'optimised':
      return `estimated ${evidence.metric} ${number(evidence.before)} → ${number(evidence.after)} from ${evidence.evaluationsUsed} rated answers`;
    default:
      return '';
  }
}

/**
 * When each version answered: from when it was made until the next version that became the
 * agent's did (now, for the one in use); a candidate, until its trial was decided (now, while on
 * trial). A candidate becomes the agent's when its trial adopts it.
 */
function answeredWhen(report: PerformanceReport, state: AutopilotState, now: number): Map<string, { from: number; to: number }> {
  const decided = new Map(state.trials.map((trial) => [trial.versionID, trial]));
  const becameLatest = (version: Version) => {
    const trial = decided.get(version.id);
    if (version.origin !== 'autopilot') return Date.parse(version.createdAt);
    return trial?.outcome === 'adopted' ? Date.parse(trial.decidedAt) : undefined;
  };
  const spans = new Map<string, { from: number; to: number }>();
  report.versions.forEach((version, i) => {
    const from = Date.parse(version.createdAt);
    const trial = decided.get(version.id);
    let to = now;
    if (version.id === state.candidate?.versionID || version.id === report.latestVersion) to = now;
    else if (trial && trial.outcome !== 'adopted') to = Date.parse(trial.decidedAt);
    else {
      const next = report.versions
        .slice(i + 1)
        .map(becameLatest)
        .find((time) => time !== undefined);
      if (next !== undefined) to = next;
    }
    spans.set(version.id, { from, to: Math.max(from, to) });
  });
  return spans;
}

/**
 * The mean metric of each version while it answered, over time (answeredWhen), with its 95%
 * interval as a band. Versions with no ratings are left out.
 */
function drawChart(report: PerformanceReport, state: AutopilotState, metric: string, label: (id: string) => string, width: number): SVGSVGElement {
  const height = 220;
  const margin = { left: 40, right: 14, top: 22, bottom: 30 };
  const now = Date.now();
  const when = answeredWhen(report, state, now);
  const spans = report.versions.map((version) => ({ version, ...when.get(version.id)!, stats: version.metrics[metric] }));
  const shown = spans.filter((span) => span.stats && span.stats.n > 0 && span.stats.mean !== null);
  const chart = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    class: 'chart',
    role: 'img',
    'aria-label': `mean ${metric} per version over time`,
  }) as SVGSVGElement;
  if (shown.length === 0) {
    chart.append(svg('text', { x: width / 2, y: height / 2, 'text-anchor': 'middle', class: 'tick' }, `no ${metric} yet`));
    return chart;
  }
  const values = shown.flatMap(({ stats }) => [stats!.low ?? stats!.mean!, stats!.high ?? stats!.mean!, stats!.mean!]);
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (high - low < 0.5) [low, high] = [low - 0.25, high + 0.25];
  const start = Math.min(...shown.map((span) => span.from));
  const end = Math.max(now, ...shown.map((span) => span.to));
  const x = (time: number) => margin.left + ((time - start) / (end - start || 1)) * (width - margin.left - margin.right);
  const y = (value: number) => margin.top + (1 - (value - low) / (high - low)) * (height - margin.top - margin.bottom);
  // value ticks at a round step, every label with the same decimals
  const step = [0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100].find((candidate) => (high - low) / candidate <= 5) ?? (high - low) / 5;
  const decimals = step < 1 ? (step === 0.25 ? 2 : 1) : 0;
  for (let tick = Math.ceil(low / step) * step; tick <= high + 1e-9; tick += step) {
    chart.append(svg('line', { x1: margin.left, x2: width - margin.right, y1: y(tick), y2: y(tick), class: 'grid' }));
    chart.append(svg('text', { x: margin.left - 6, y: y(tick) + 4, 'text-anchor': 'end', class: 'tick value-tick' }, tick.toFixed(decimals)));
  }
  const clock = (time: number) => new Date(time).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  chart.append(svg('text', { x: margin.left, y: height - 8, class: 'tick' }, clock(start)));
  chart.append(svg('text', { x: width - margin.right, y: height - 8, 'text-anchor': 'end', class: 'tick' }, clock(end)));
  let labelsEnd = -Infinity;
  shown.forEach(({ version, from, to, stats }, i) => {
    const colour = palette[i % palette.length]!;
    const left = x(from);
    const right = Math.max(x(to), left + 3);
    const top = y(stats!.high ?? stats!.mean!);
    const bottom = y(stats!.low ?? stats!.mean!);
    const band = svg('rect', { x: left, y: top, width: right - left, height: Math.max(1, bottom - top), fill: colour, 'fill-opacity': 0.15 });
    band.append(
      svg(
        'title',
        {},
        `${label(version.id)}: mean ${metric} ${number(stats!.mean)} (95%: ${number(stats!.low)} to ${number(stats!.high)}), ${stats!.n} ratings`,
      ),
    );
    chart.append(
      band,
      svg('line', { x1: left, x2: right, y1: y(stats!.mean!), y2: y(stats!.mean!), stroke: colour, 'stroke-width': 3, class: 'version-line' }),
    );
    // a version's name above its line when it fits after the previous one's
    const name = label(version.id);
    if (left >= labelsEnd + 6) {
      chart.append(svg('text', { x: left, y: Math.max(12, top - 5), class: 'tick version-label', fill: colour }, name));
      labelsEnd = left + name.length * 7;
    }
  });
  return chart;
}

/** The numbers that moved from `before` to `after`, if they share a structure (else undefined). */
function changesBetween(before: AgentDefinition, after: AgentDefinition): OptimizeResult['changes'] | undefined {
  try {
    const weights = after.rules.map((rule) => parseRule(rule).weight);
    if (weights.length !== before.rules.length) return undefined;
    return new Tuning(before).changes({ inputs: after.inputs, outputs: after.outputs, weights });
  } catch {
    return undefined;
  }
}

export function mountAutopilotPanel(container: HTMLElement, context: DemoContext): void {
  container.replaceChildren();
  const heading = element('h2');
  heading.append(element('span', '6', 'step'), ' Autopilot ', element('small', 'the agent learns by itself from the ratings its answers get'));
  const intro = element(
    'p',
    'With autopilot on, every answer is varied a little (never outside the output’s range), and the ratings those answers get show ' +
      'which way is better. After enough new ratings, autopilot proposes a new version in the background, serves it to half of the ' +
      'diners as a trial, and makes it the agent’s version only if its ratings are clearly better; otherwise it drops it. ' +
      `“Send diners” brings ${DINERS} simulated diners who rate each answer (metric “${SIMULATED_METRIC}”, the same made-up users as above). ` +
      'Any version can be rolled back to.',
    'small',
  );
  const switchBox = element('input');
  switchBox.type = 'checkbox';
  const switchLabel = element('label', '', 'switch');
  switchLabel.append(switchBox, ' Autopilot on');
  const send = element('button', `Send ${DINERS} diners`);
  send.type = 'button';
  const controls = element('div', '', 'controls');
  controls.append(switchLabel, send);
  const progress = element('progress');
  progress.hidden = true;
  progress.style.cssText = 'width:100%';
  const message = element('p', '', 'small');
  message.setAttribute('role', 'status');
  const state = element('p', '', 'autopilot-state');
  const chartBox = element('div', '', 'autopilot-chart');
  const explanation = element('div', '', 'explanation');
  const table = element('table', '', 'history versions');
  container.append(heading, intro, controls, progress, message, state, chartBox, explanation, table);

  let busy = false;
  /** Draws the chart of the last refresh again, at the panel's width (drawn in its own units, so its words keep their size on a phone). */
  let drawn = () => undefined as unknown;
  const chartWidth = () => Math.max(300, Math.min(720, chartBox.clientWidth || 640));
  let widthDrawn = 0;
  new ResizeObserver(() => {
    if (chartBox.clientWidth === widthDrawn) return;
    widthDrawn = chartBox.clientWidth;
    drawn();
  }).observe(chartBox);
  let shownFor: string | null = null;
  const say = (text: string, bad = false) => {
    message.textContent = text;
    message.style.color = bad ? 'var(--bad)' : '';
  };
  const fail = (error: unknown) => say(error instanceof Error ? error.message : String(error), true);
  const metricOf = (agent: Agent) => Object.keys(agent.performance ?? {})[0] ?? SIMULATED_METRIC;

  async function refresh(): Promise<void> {
    const agent = context.agent();
    if (!agent) return;
    const [autopilot, report] = await Promise.all([context.client.getAutopilot(agent.id), context.client.getPerformance(agent.id)]);
    if (context.agent()?.id !== agent.id) return; // another agent came on screen meanwhile
    shownFor = agent.id;
    switchBox.checked = autopilot.active;
    const metric = metricOf(agent);
    const numbers = new Map(report.versions.map((version, i) => [version.id, i + 1]));
    const label = (id: string) => (numbers.has(id) ? `v${numbers.get(id)}` : 'an earlier version');
    const latest = label(report.latestVersion);
    const fresh = !autopilot.active
      ? 'Autopilot is off: answers are the agent’s own, unvaried.'
      : autopilot.candidate
        ? `Version ${label(autopilot.candidate.versionID)} is on trial against ${label(autopilot.candidate.basedOn)}.`
        : `Autopilot proposes a version after every ${autopilot.proposeEvery} new ratings; ${autopilot.usedFeedback} ratings have gone into proposals so far.`;
    const decided = autopilot.trials.length;
    const adopted = autopilot.trials.filter((trial) => trial.outcome === 'adopted').length;
    const gained = autopilot.gain?.metrics[metric];
    const total = gained
      ? ` Together, its versions rate ${number(Math.abs(gained.value))} ${gained.value >= 0 ? 'higher' : 'lower'} than ${label(autopilot.gain!.since)} (95% interval ${number(gained.low)} to ${number(gained.high)}).`
      : '';
    // ratings are summarised on the agent's goals: a version without `performance` has none to summarise
    const goalless =
      report.performance === null
        ? ` ${latest} has no goal (performance): ratings are not summarised without one (they stay stored), and autopilot needs one; ` +
          `switching autopilot on gives the agent the goal “${metric}”.`
        : '';
    state.textContent = `The agent answers with ${latest}. ${fresh} ${decided} trial${decided === 1 ? '' : 's'} decided, ${adopted} adopted.${total}${goalless}`;

    drawn = () => chartBox.replaceChildren(element('h3', `Mean ${metric} per version, over time`), drawChart(report, autopilot, metric, label, chartWidth()));
    drawn();

    table.replaceChildren();
    const head = element('tr');
    for (const [title, className] of [
      ['version', 'version'],
      ['made', 'made'],
      ['why it exists', 'why'],
      ['ratings', 'ratings'],
      [`mean ${metric}`, 'mean'],
      ['', 'action'],
    ]) {
      head.append(element('th', title, className));
    }
    table.append(head);
    for (const version of [...report.versions].reverse()) {
      const row = element('tr');
      const name = element('td', label(version.id), 'version');
      if (version.id === report.latestVersion) name.append(element('small', ' (in use)'));
      const stats = version.metrics[metric];
      const mean = stats && stats.n > 0 ? `${number(stats.mean)}${stats.low !== null ? ` ± ${number(stats.mean! - stats.low)}` : ''}` : '–';
      const action = element('td', '', 'action');
      if (version.id !== report.latestVersion && version.id !== autopilot.candidate?.versionID) {
        const back = element('button', 'Roll back', 'quiet');
        back.type = 'button';
        back.addEventListener('click', () => void rollBack(agent, version.id, label(version.id)));
        action.append(back);
      }
      row.append(
        name,
        element('td', new Date(version.createdAt).toLocaleTimeString(), 'made'),
        element('td', [originWords[version.origin ?? ''] ?? 'made', evidenceWords(version, label, autopilot)].filter(Boolean).join(': '), 'why'),
        element('td', report.performance === null ? '–' : String(stats?.n ?? 0), 'ratings'),
        element('td', mean, 'mean'),
        action,
      );
      table.append(row);
    }
    await explainNewest(agent, report, autopilot, label);
  }

  /** What the newest adopted autopilot version moved, in words, and what it means for the answer on screen. */
  async function explainNewest(agent: Agent, report: PerformanceReport, autopilot: AutopilotState, label: (id: string) => string): Promise<void> {
    const trial = [...autopilot.trials].reverse().find((t) => t.outcome === 'adopted');
    explanation.replaceChildren();
    if (!trial) return;
    const version = report.versions.find((v) => v.id === trial.versionID);
    if (!version) return;
    const [after, before] = await Promise.all([context.client.getVersion(trial.versionID), context.client.getVersion(trial.basedOn)]);
    const evidence = (version.evidence ?? {}) as { estimate?: { before: number; after: number }; evaluationsUsed?: number };
    const heading = element('h3', `What autopilot changed in ${label(trial.versionID)}, adopted over ${label(trial.basedOn)}`);
    const changes = changesBetween(before, after);
    // a table agent (docs/LEARNING.md) has rules of its own: no list of moved numbers, but the same answer on screen and trial
    const sentences = changes
      ? explainOptimization(
          {
            versionID: after.id,
            basedOn: before.id,
            evaluationsUsed: evidence.evaluationsUsed ?? 0,
            metric: metricOf(agent),
            goal: 'maximize',
            before: evidence.estimate?.before ?? trial.current.mean ?? 0,
            after: evidence.estimate?.after ?? trial.candidate.mean ?? 0,
            changes,
            definition: { inputs: after.inputs, outputs: after.outputs, rules: after.rules, ...(after.operators ? { operators: after.operators } : {}) },
          },
          before,
          context.inputs(),
        )
      : [
          answerOnScreen(before, after, context.inputs()),
          `It changed the agent’s rules: ${before.rules.length} before, ${after.rules.length} now, one for each cell of the inputs with its own answer (the editor below shows them).`,
        ];
    sentences.push(
      `On trial, answers by ${label(trial.versionID)} were rated ${number(trial.candidate.mean)} on average against ${number(trial.current.mean)} ` +
        `for ${label(trial.basedOn)} (${trial.candidate.n} and ${trial.current.n} ratings): clearly better, so it became the agent’s version.`,
    );
    explanation.append(heading, ...sentences.map((sentence) => element('p', sentence)));
  }

  async function rollBack(agent: Agent, versionID: string, name: string): Promise<void> {
    try {
      const target = await context.client.getVersion(versionID);
      await context.client.rollback(agent.id, versionID);
      say(
        agent.performance && !target.performance
          ? `Rolled back: the agent answers with ${name}’s definition again, as a new version. ${name} has no goal (performance), ` +
              'so autopilot stopped and ratings are not summarised until it has one: switch autopilot on to give it one again.'
          : `Rolled back: the agent answers with ${name}’s definition again, as a new version.`,
      );
      await context.reload();
      await refresh();
    } catch (error) {
      fail(error);
    }
  }

  switchBox.addEventListener('change', async () => {
    const agent = context.agent();
    if (!agent) return;
    switchBox.disabled = true;
    try {
      if (switchBox.checked && !agent.performance) {
        // autopilot learns what `performance` names: here, the simulated diners' rating
        const { id: _id, createdAt: _c, updatedAt: _u, latestVersion: _l, ...definition } = agent;
        await context.client.updateAgent(agent.id, { ...(definition as AgentBody), performance: { [SIMULATED_METRIC]: 'maximize' } });
        await context.reload();
      }
      await context.client.setAutopilot(agent.id, switchBox.checked);
      say(switchBox.checked ? `Autopilot is on: it maximises the mean “${metricOf(context.agent() ?? agent)}”.` : 'Autopilot is off.');
      await refresh();
    } catch (error) {
      fail(error);
    } finally {
      switchBox.disabled = false;
    }
  });

  send.addEventListener('click', async () => {
    const agent = context.agent();
    if (!agent || busy) return;
    busy = true;
    send.disabled = true;
    progress.hidden = false;
    progress.max = DINERS;
    progress.value = 0;
    try {
      const compiled = compileAgent(agent);
      let rated = 0;
      for (let sent = 0; sent < DINERS; sent += ROUND) {
        const situations = Array.from({ length: Math.min(ROUND, DINERS - sent) }, () => randomSituation(compiled));
        // plain evaluations: the worker varies the answers itself while autopilot is on
        const evaluations = await context.client.evaluateBatch(agent.id, situations);
        await Promise.all(
          evaluations.map(async ({ outputs, evaluationID }, i) => {
            const rating = simulatedRating(compiled, situations[i]!, outputs);
            if (rating === undefined) return;
            await context.client.postFeedback(evaluationID, { [SIMULATED_METRIC]: rating });
            rated++;
          }),
        );
        progress.value = sent + situations.length;
        await refresh();
      }
      say(`${rated} diners rated their answers.`);
      await context.reload();
      await refresh();
    } catch (error) {
      fail(error);
    } finally {
      busy = false;
      send.disabled = false;
      progress.hidden = true;
    }
  });

  context.onAgentChange((agent) => {
    send.disabled = agent === null || busy;
    switchBox.disabled = agent === null;
    if (agent === null) {
      for (const part of [state, chartBox, explanation, table]) part.replaceChildren();
      say('');
      return;
    }
    if (agent.id !== shownFor) say('');
    void refresh().catch(fail);
  });
}
