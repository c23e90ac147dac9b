/// <reference types="vite/client" />
// The offline demo: registers the fuzzbox worker, then talks to the REST interface with the
// typed client exactly as any app would. The engine is also loaded in the page, only to draw
// each set's shape and to preview while a slider moves; every stored evaluation is the worker's.
import { FuzzyApiError, FuzzyClient, registerFuzzyWorker, type WorkerSyncSettings, type WorkerUpdate } from '../src/client/index.js';
import { mountAutopilotPanel } from './autopilot-panel.js';
import { mountDataPanel } from './data-panel.js';
import { mountModelFiles } from './model-file.js';
import { chartRange, linearTermList, outputTerms, weightedWords } from './output-terms.js';
import { mountReferencePanel } from './reference-panel.js';
import { activations, AgentValidationError, compileAgent, evaluate, setShape, type CompiledAgent } from '../src/engine/index.js';
import type { Condition, Hedge, Inputs, TermDefinition, Trace } from '../src/engine/types.js';
import type { Agent, AgentBody, EvaluationMeta } from '../src/schema/index.js';
import { drawInput, drawOutput, fitChartsTo, formatNumber, isBar } from './draw.js';
import { AgentEditor } from './editor.js';
import { sampleAgent, sampleInputs } from './sample-agent.js';
import { mountSurfacePanel } from './surface-panel.js';
import { mountSyncBadge, type SyncBadge } from './sync-badge.js';

/** What the optional "Optimize" panel (demo/optimize-panel.ts) is given when it mounts. */
export interface DemoContext {
  client: FuzzyClient;
  /** The agent on screen, or null before one is loaded. */
  agent(): Agent | null;
  /** Reloads the agent on screen (e.g. after the panel saved a new version) and evaluates it again. */
  reload(): Promise<void>;
  /** The inputs on screen (the sliders' values). */
  inputs(): Inputs;
  /**
   * Called with the agent every time another agent, or a new version of it, is on screen; null
   * when none is left. A panel that registers once an agent is on screen is called at once.
   */
  onAgentChange(listener: (agent: Agent | null) => void): void;
  /** Called with the inputs on screen every time an evaluation of them is drawn (stored, or previewed while a slider moves). */
  onDraw(listener: (inputs: Inputs) => void): void;
  /** Sets the inputs on screen (the sliders too) to these values, then evaluates and stores them as a slider's release does. */
  evaluateAt(values: Inputs): Promise<void>;
}

const $ = <T extends HTMLElement>(selector: string) => document.querySelector<T>(selector)!;
const base = new URL('./', location.href);
const storageKey = (name: string) => `fuzzbox-demo:${base.pathname}:${name}`;
const historyLength = 8;

let client = new FuzzyClient({ baseURL: base });
/** The account's key: the typed client keeps its own; model files are sent with plain fetch. */
let apiKey = '';
let agent: Agent | null = null;
let compiled: CompiledAgent | null = null;
let inputs: Record<string, number> = { ...sampleInputs };
let shownEvaluation: string | null = null;
const agentListeners: Array<(agent: Agent | null) => void> = [];
const drawListeners: Array<(inputs: Inputs) => void> = [];
const editor = new AgentEditor($<HTMLFormElement>('#editor'));

function setStatus(text: string, tone: 'ok' | 'busy' | 'offline' | 'error' = 'ok'): void {
  const status = $('#status');
  status.textContent = text;
  status.dataset.tone = tone;
}

function showConnectivity(): void {
  if (navigator.onLine) setStatus('Ready · works offline too', 'ok');
  else setStatus('Offline · still working, all in your browser', 'offline');
}

async function start(): Promise<void> {
  setStatus('Starting the offline engine…', 'busy');
  // The worker answers the REST paths under this page's directory, wherever the demo is served.
  const worker = new URL(`fuzzbox-sw.js?basePath=${encodeURIComponent(base.pathname)}`, base);
  const saved = localStorage.getItem(storageKey('sync'));
  const sync = saved === null ? null : (JSON.parse(saved) as WorkerSyncSettings);
  let badge: SyncBadge | undefined;
  const registered = await registerFuzzyWorker(worker.pathname + worker.search, {
    onUpdate: offerUpdate,
    sync,
    onSync: ({ status, newVersions }) => {
      badge?.show(status);
      if (newVersions.length > 0) void showAgentList(agent?.id ?? null);
    },
  });
  badge = mountSyncBadge($('#sync'), registered, sync, async (next) => {
    if (next) localStorage.setItem(storageKey('sync'), JSON.stringify(next));
    else localStorage.removeItem(storageKey('sync'));
    location.reload(); // the next start registers with the new settings and signs in with their key
  });
  // synced, the demo is the server account's, whose key the worker's replica answers to offline too
  apiKey = sync ? sync.apiKey : await signIn();
  client = client.withKey(apiKey);
  showConnectivity();
  addEventListener('online', showConnectivity);
  addEventListener('offline', showConnectivity);
  showDataState = mountDataPanel(
    $('#data-panel'),
    () => client,
    () => showAgentList(agent?.id ?? null),
  );
  mountOptimizePanel();
  mountModelFiles($<HTMLButtonElement>('#open-model'), $('#open-error'), {
    base,
    apiKey: () => apiKey,
    opened: async (agentID, fileName) => {
      await showAgentList(agentID, true);
      setStatus(`Opened “${agent?.name ?? ''}” from ${fileName}`, 'ok');
    },
  });
  void mountReferencePanel($('#reference-panel'), base).catch(showFailure);
  await showAgentList(localStorage.getItem(storageKey('agent')));
}

/** Shows "Your data" again: called after every write the page makes (evaluations, feedback, agents). */
let showDataState = async (): Promise<void> => {};

/** A new build of the worker is waiting: switching keeps every record, so offer it plainly. */
function offerUpdate(update: WorkerUpdate): void {
  const banner = $('#update');
  banner.hidden = false;
  banner.querySelector('button')!.onclick = async () => {
    await update.activate();
    location.reload();
  };
}

/** One account per browser; its key is kept in localStorage (the service stores only its hash). */
async function signIn(): Promise<string> {
  const saved = localStorage.getItem(storageKey('apiKey'));
  if (saved) {
    try {
      await client.withKey(saved).listAgents();
      return saved;
    } catch (error) {
      if (!(error instanceof FuzzyApiError && error.error === 'Unauthorized')) throw error;
    }
  }
  const account = await client.createAccount('fuzzbox demo');
  localStorage.setItem(storageKey('apiKey'), account.apiKey);
  return account.apiKey;
}

/**
 * Lists the agents and shows `preferred` (or the first). `evaluateAgain`: store a new evaluation
 * of it (after a new version); otherwise its newest stored evaluation is shown, so a reload or a
 * switch of agent adds nothing to History.
 */
async function showAgentList(preferred: string | null, evaluateAgain = false): Promise<void> {
  let agents = await client.listAgents();
  // The sample is added once, on a first visit; after that, deleting every agent leaves none.
  if (agents.length === 0 && localStorage.getItem(storageKey('sample added')) === null) {
    await client.createAgent(sampleAgent);
    agents = await client.listAgents();
  }
  localStorage.setItem(storageKey('sample added'), 'yes');
  const select = $<HTMLSelectElement>('#agent-select');
  select.replaceChildren(...agents.map(({ id, name }) => new Option(name || '(no name)', id)));
  showEmptyState(agents.length === 0);
  if (agents.length === 0) {
    agent = null;
    compiled = null;
    for (const listener of agentListeners) listener(null);
    void showDataState();
    return;
  }
  const chosen = agents.find(({ id }) => id === preferred)?.id ?? agents[0]!.id;
  select.value = chosen;
  await showAgent(chosen, evaluateAgain);
}

async function showAgent(agentID: string, evaluateAgain = false): Promise<void> {
  agent = await client.getAgent(agentID);
  compiled = compileAgent(agent);
  localStorage.setItem(storageKey('agent'), agent.id);
  editor.show(agent);
  const previous = inputs;
  inputs = Object.fromEntries(Object.entries(compiled.inputs).map(([name, { range }]) => [name, previous[name] ?? (range[0] + range[1]) / 2]));
  buildSliders();
  for (const listener of agentListeners) listener(agent);
  const newest = evaluateAgain ? undefined : (await client.listEvaluations(agent.id, { limit: 1 })).evaluations[0];
  if (newest) await showStoredEvaluation(newest.reqID);
  else await evaluateAndStore();
}

/** With no agent left, only the intro (saying so) and the editor are shown. */
function showEmptyState(empty: boolean): void {
  if (empty) document.body.dataset.empty = '';
  else delete document.body.dataset.empty;
  $('#empty-state').hidden = !empty;
  $<HTMLButtonElement>('#delete-agent').disabled = empty;
}

function buildSliders(): void {
  const container = $('#inputs');
  container.replaceChildren();
  for (const [name, { range }] of Object.entries(compiled!.inputs)) {
    const figure = document.createElement('figure');
    figure.className = 'input';
    figure.dataset.input = name;
    const step = (range[1] - range[0]) / 200;
    figure.innerHTML = `
      <label class="slider"><span class="name"></span>
        <input type="range" min="${range[0]}" max="${range[1]}" step="${step}" />
        <output></output></label>
      <div class="plot"></div>`;
    figure.querySelector('.name')!.textContent = name;
    const slider = figure.querySelector('input')!;
    slider.value = String(inputs[name]);
    slider.setAttribute('aria-label', name);
    figure.querySelector('output')!.textContent = formatNumber(inputs[name]!);
    // While dragging, the page's own engine previews; on release the worker evaluates and logs.
    slider.addEventListener('input', () => {
      inputs[name] = Number(slider.value);
      figure.querySelector('output')!.textContent = formatNumber(inputs[name]!);
      const trace = evaluate(compiled!, inputs, { trace: true }) as Trace;
      draw(trace, trace.crisp, 'preview — release the slider to store this evaluation', current());
    });
    slider.addEventListener('change', () => void evaluateAndStore());
    container.append(figure);
  }
}

async function evaluateAndStore(): Promise<void> {
  if (!agent) return;
  try {
    const evaluation = await client.evaluate(agent.id, inputs, { meta: true });
    shownEvaluation = evaluation.evaluationID;
    draw(evaluation.meta!, evaluation.outputs, 'stored', current());
    resetFeedbackForm();
    await showHistory();
  } catch (error) {
    showFailure(error);
  }
}

type Steps = Pick<EvaluationMeta, 'fuzzified' | 'inferred' | 'clipped' | 'combined' | 'centroid'>;

/** The agent (version) an evaluation is drawn with: its sets, and compiled for ranges and rule strengths. */
interface DrawnAgent {
  definition: AgentBody;
  compiled: CompiledAgent;
}

const current = (): DrawnAgent => ({ definition: agent!, compiled: compiled! });

/** Draws the evaluation on screen again, e.g. at a new width; undefined before the first. */
let redraw: (() => void) | undefined;
let drawnWidth = 0;
new ResizeObserver(() => {
  if ($('#inputs').clientWidth === drawnWidth) return;
  redraw?.();
}).observe($('#inputs'));

function draw(steps: Steps, crisp: Record<string, number>, state: string, drawn: DrawnAgent): void {
  redraw = () => draw(steps, crisp, state, drawn);
  drawnWidth = $('#inputs').clientWidth;
  for (const figure of document.querySelectorAll<HTMLElement>('#inputs figure')) {
    const name = figure.dataset.input!;
    const plot = figure.querySelector('.plot')!;
    const variable = drawn.definition.inputs[name];
    // an input the agent gained after this evaluation's version
    if (!variable) {
      plot.replaceChildren();
      continue;
    }
    const { range } = drawn.compiled.inputs[name]!;
    const sets = Object.fromEntries(Object.entries(variable).map(([set, points]) => [set, setShape(points, range)]));
    fitChartsTo(plot.clientWidth);
    plot.replaceChildren(drawInput(name, { range, sets, value: inputs[name]!, degrees: steps.fuzzified[name] ?? {} }));
  }
  showRules(drawn.compiled);
  const answer = $('#answer');
  answer.replaceChildren();
  const charts = $('#outputs');
  charts.replaceChildren();
  let weightedOutputs = 0;
  for (const [name, variable] of Object.entries(drawn.definition.outputs)) {
    const value = crisp[name];
    const clipped = steps.clipped[name] ?? {};
    const terms = outputTerms(variable, drawn.compiled.outputs[name]!.range);
    const weighted = Object.values(terms).some((term) => !('shape' in term)) || Object.values(clipped).some(isBar);
    if (weighted) weightedOutputs++;
    const line = document.createElement('p');
    line.className = 'result';
    line.innerHTML = value === undefined ? `<b></b>: no rule fired, so there is no answer` : `<b></b> <span class="crisp"></span>`;
    line.querySelector('b')!.textContent = name;
    const why = document.createElement('p');
    why.className = 'why';
    if (value !== undefined) {
      line.querySelector('.crisp')!.textContent = formatNumber(value);
      if (weighted) {
        const own = drawn.definition.operators?.outputs?.[name]?.defuzzification ?? drawn.definition.operators?.defuzzification;
        why.textContent = weightedWords(name, clipped, value, own === 'weightedSum');
      } else {
        const strengths = Object.entries(steps.inferred[name] ?? {}).map(([set, degree]) => `“${set}” ${degree.toFixed(2)}`);
        const listed = strengths.length > 1 ? `${strengths.slice(0, -1).join(', ')} and ${strengths.at(-1)}` : strengths[0];
        why.textContent = `The rules gave ${listed}. Each set is cut at that height; ` + `the cut shapes together balance at ${formatNumber(value)}.`;
      }
    }
    answer.append(line, why);
    const figure = document.createElement('figure');
    figure.className = 'output';
    fitChartsTo(charts.clientWidth);
    figure.append(
      drawOutput(name, {
        range: chartRange(drawn.compiled.outputs[name]!.range, terms, value),
        terms,
        clipped,
        combined: steps.combined[name],
        centroid: steps.centroid[name],
      }),
    );
    const linear = linearTermList(variable, clipped);
    if (linear) figure.append(linear);
    charts.append(figure);
  }
  // the legend of the shapes a Mamdani output draws, and of the values a weighted one does
  const outputCount = Object.keys(drawn.definition.outputs).length;
  $('#shapes-legend').hidden = weightedOutputs === outputCount;
  $('#values-legend').hidden = weightedOutputs === 0;
  const constants = Object.values(drawn.definition.outputs).some((variable) =>
    Object.values(variable).some((definition) => !Array.isArray(definition) && (definition as TermDefinition).type === 'constant'),
  );
  $('#stem-key').hidden = !constants;
  $('#answer-subtitle').textContent =
    weightedOutputs === outputCount
      ? 'each rule weighs its term’s value; the weighted mean of the values is the answer'
      : 'rules cut their sets; the cut shapes stack; the balance point is the answer';
  const note = document.createElement('p');
  note.className = 'small state';
  note.textContent = state === 'stored' && shownEvaluation ? `Stored as evaluation ${shownEvaluation}` : state;
  answer.append(note);
  for (const listener of drawListeners) listener({ ...inputs });
}

/** A hedge as the rules' hint explains it (fuzzylite's definitions, docs/ENGINE.md "Hedges"). */
const hedgeWords: Record<Hedge, string> = {
  very: 'very squares a degree (0.5 → 0.25)',
  somewhat: 'somewhat takes its square root (0.25 → 0.5)',
  extremely: 'extremely sharpens it along an S-curve',
  seldom: 'seldom softens it along the inverse S-curve',
};
const conjunctionWords: Partial<Record<string, string>> = { min: 'AND takes the smaller degree', product: 'AND multiplies the degrees' };
const disjunctionWords: Partial<Record<string, string>> = { max: 'OR the larger', probabilisticSum: 'OR takes a + b − ab' };

/**
 * Hedges after IS (and NOT) in a rule's text: a word is one where a set's name follows it, as the
 * parser reads them, so a set named "very" stays a name.
 */
const hedged = /(\bIS\s+(?:NOT\s+)?)((?:(?:very|somewhat|seldom|extremely)\s+)+)(?=(?!(?:AND|OR|THEN|WITH)\b)[^\s),])/g;

/** The rule's text with its hedges marked. */
function showHedges(code: HTMLElement, rule: string): void {
  code.replaceChildren();
  let from = 0;
  for (const match of rule.matchAll(hedged)) {
    const start = match.index + match[1]!.length;
    const hedge = document.createElement('em');
    hedge.className = 'hedge';
    hedge.textContent = match[2]!.trimEnd();
    code.append(rule.slice(from, start), hedge, ' ');
    from = start + match[2]!.length;
  }
  code.append(rule.slice(from));
}

/** What AND, OR, NOT and the hedges the rules use do, with the agent's own operators. */
function rulesHint(rulesOf: CompiledAgent): string {
  const { and, or } = rulesOf.operators;
  const hedges = new Set<Hedge>();
  const collect = (condition: Condition): void => {
    if (condition.type === 'is') for (const hedge of condition.hedges ?? []) hedges.add(hedge);
    else if (condition.type === 'not') collect(condition.operand);
    else for (const operand of condition.operands) collect(operand);
  };
  for (const rule of rulesOf.expandedRules) {
    collect(rule.condition);
    for (const conclusion of rule.conclusions) for (const hedge of conclusion.hedges ?? []) hedges.add(hedge);
  }
  const spoken = (norm: string) => `the ${norm.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`)}`; // einsteinProduct → the einstein product
  const words = [conjunctionWords[and] ?? `AND combines degrees by ${spoken(and)}`, disjunctionWords[or] ?? `OR by ${spoken(or)}`, 'NOT turns d into 1 − d'];
  const hedging = [...hedges].map((hedge) => hedgeWords[hedge]);
  return `${words.join(', ')}.${hedging.length > 0 ? ` Hedges: ${hedging.join('; ')}.` : ''}`;
}

function showRules(rulesOf: CompiledAgent): void {
  $('#rules-hint').textContent = rulesHint(rulesOf);
  const list = $('#rules');
  list.replaceChildren(
    ...activations(rulesOf, inputs).map(({ rule, strength }) => {
      const item = document.createElement('li');
      item.className = strength > 0 ? 'fired' : 'idle';
      item.innerHTML = `<code></code><span class="bar"><span></span></span><span class="strength"></span>`;
      showHedges(item.querySelector('code')!, rule);
      item.querySelector<HTMLElement>('.bar span')!.style.width = `${(strength * 100).toFixed(1)}%`;
      item.querySelector('.strength')!.textContent = strength > 0 ? strength.toFixed(2) : 'does not fire';
      return item;
    }),
  );
}

// History: the agent's newest evaluations with their feedback, one request to the service.
async function showHistory(): Promise<void> {
  const { evaluations } = await client.listEvaluations(agent!.id, { limit: historyLength });
  const rows = evaluations.map((log) => {
    const { reqID: id, feedback } = log;
    const row = document.createElement('tr');
    row.dataset.evaluation = id;
    if (id === shownEvaluation) row.className = 'current';
    const cells = [
      new Date(log.createdAt).toLocaleTimeString(),
      describe(log.input),
      Object.keys(log.crisp).length ? describe(log.crisp) : 'no rule fired',
      feedback.length ? feedback.map((item) => describe(item.data)).join('; ') : '—',
    ];
    for (const text of cells) row.insertCell().textContent = text;
    row.addEventListener('click', () => void showStoredEvaluation(id));
    return row;
  });
  $('#history').replaceChildren(...rows);
  void showDataState();
}

const describe = (values: Record<string, number>) =>
  Object.entries(values)
    .map(([name, value]) => `${name} ${Number(value.toFixed(2))}`)
    .join(', ');

/** The sliders (and the numbers beside them) at the inputs' values. */
function showSliderValues(): void {
  for (const figure of document.querySelectorAll<HTMLElement>('#inputs figure')) {
    const value = inputs[figure.dataset.input!]!;
    figure.querySelector('input')!.value = String(value);
    figure.querySelector('output')!.textContent = formatNumber(value);
  }
}

async function showStoredEvaluation(id: string): Promise<void> {
  const log = await client.getEvaluation(id);
  // An older evaluation may come from an earlier version of the agent: draw it with that one.
  const version = await client.getVersion(log.versionID);
  inputs = { ...inputs, ...log.input };
  showSliderValues();
  shownEvaluation = id;
  draw(log, log.crisp, 'stored', { definition: version, compiled: compileAgent(version) });
  resetFeedbackForm();
  await showHistory();
}

function resetFeedbackForm(): void {
  $('#feedback-message').textContent = '';
  for (const button of document.querySelectorAll('[data-rating]')) button.classList.remove('chosen');
  const better = $('#better-values');
  better.replaceChildren(
    ...Object.keys(agent!.outputs).map((name) => {
      const label = document.createElement('label');
      label.innerHTML = `A better <span></span> would have been <input type="number" step="any" /> <button type="button">Send</button>`;
      label.querySelector('span')!.textContent = name;
      const field = label.querySelector('input')!;
      label.querySelector('button')!.addEventListener('click', () => {
        if (field.value !== '') void sendFeedback({ [`better ${name}`]: Number(field.value) });
      });
      return label;
    }),
  );
}

async function sendFeedback(data: Record<string, number>): Promise<void> {
  if (!shownEvaluation) return;
  try {
    await client.postFeedback(shownEvaluation, data);
    $('#feedback-message').textContent = `Thanks: saved with evaluation ${shownEvaluation}.`;
    await showHistory();
  } catch (error) {
    showFailure(error);
  }
}

for (const button of document.querySelectorAll<HTMLButtonElement>('[data-rating]')) {
  button.addEventListener('click', () => {
    for (const other of document.querySelectorAll('[data-rating]')) other.classList.toggle('chosen', other === button);
    void sendFeedback({ rating: Number(button.dataset.rating) });
  });
}

$('#agent-select').addEventListener('change', (event) => {
  // what the status said was about the agent on screen before
  void showAgent((event.target as HTMLSelectElement).value).then(showConnectivity, showFailure);
});

async function saveAgent(body: AgentBody | null, asNew: boolean): Promise<void> {
  if (!body) return;
  // the engine in the page checks what the service would: a mistake is shown without a request (and its 400)
  try {
    compileAgent(body);
  } catch (error) {
    if (!(error instanceof AgentValidationError)) throw error;
    editor.showIssues(error.message, error.issues);
    return;
  }
  try {
    const saved = asNew || !agent ? await client.createAgent(body) : await client.updateAgent(agent.id, body);
    await showAgentList(saved.id, true);
    const versions = await client.listVersions(saved.id);
    const number = versions.findIndex(({ id }) => id === saved.latestVersion) + 1;
    setStatus(asNew ? `Saved “${saved.name}” as a new agent` : `Saved “${saved.name}” as version ${number}`, 'ok');
  } catch (error) {
    // a definition the service refused (ValidationError: by field) or could not read (InvalidRequest): the editor's to show
    if (error instanceof FuzzyApiError && (error.error === 'ValidationError' || error.error === 'InvalidRequest'))
      editor.showIssues(error.message, error.issues);
    else showFailure(error);
  }
}

/** The editor's agent with the settings it does not show (goals, operators) kept from the agent on screen. */
function edited(): AgentBody | null {
  const body = editor.read();
  if (!body || !agent) return body;
  return { ...body, ...(agent.performance ? { performance: agent.performance } : {}), ...(agent.operators ? { operators: agent.operators } : {}) };
}

$('#editor').addEventListener('submit', (event) => {
  event.preventDefault();
  void saveAgent(edited(), false);
});
$('#save-as-new').addEventListener('click', () => void saveAgent(edited(), true));
$('#restore-sample').addEventListener('click', () => void saveAgent(sampleAgent, true));
$('#delete-agent').addEventListener('click', () => {
  if (!agent || !confirm(`Delete “${agent.name}” and all its versions?`)) return;
  const { id, name } = agent;
  void client
    .deleteAgent(id)
    .then(() => showAgentList(null))
    .then(() => setStatus(`Deleted “${name}”`, 'ok'), showFailure);
});

function showFailure(error: unknown): void {
  setStatus(error instanceof Error ? error.message : String(error), 'error');
}

// ── Optimize panel ─────────────────────────────────────────────────────────────────────────────
// The learning engineer's panel lives in demo/optimize-panel.ts and exports
// `mountOptimizePanel(container, context)`; the glob is empty (and nothing mounts) until it exists.
const optimizePanel = import.meta.glob<{ mountOptimizePanel(container: HTMLElement, context: DemoContext): void }>('./optimize-panel.ts');

function mountOptimizePanel(): void {
  const container = $('#optimize-panel');
  const context: DemoContext = {
    client,
    agent: () => agent,
    inputs: () => ({ ...inputs }),
    reload: async () => showAgentList(agent?.id ?? null, true),
    onAgentChange: (listener) => {
      agentListeners.push(listener);
      if (agent) listener(agent);
    },
    onDraw: (listener) => drawListeners.push(listener),
    evaluateAt: async (values) => {
      inputs = { ...inputs, ...values };
      showSliderValues();
      await evaluateAndStore();
    },
  };
  mountAutopilotPanel($('#autopilot-panel'), context);
  mountSurfacePanel($('#surface-panel'), context);
  for (const load of Object.values(optimizePanel)) {
    void load().then((panel) => {
      container.hidden = false;
      panel.mountOptimizePanel(container, context); // ← the one-line mount call
    });
  }
}

start().catch(showFailure);
