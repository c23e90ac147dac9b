// The agent editor: four fields, and every problem shown next to the field it belongs to,
// whether JSON.parse found it here or the service's validation found it.
import type { ValidationIssue } from '../src/engine/types.js';
import type { AgentBody } from '../src/schema/index.js';

const fields = ['name', 'inputs', 'outputs', 'rules'] as const;
type Field = (typeof fields)[number];

export class AgentEditor {
  /** The line (from 0) of the rules box each rule of the last `read()` came from, blank lines skipped. */
  #ruleLines: number[] = [];

  constructor(private readonly form: HTMLFormElement) {
    // a hint under inputs and outputs: what the sets as written do that was probably not meant
    for (const field of ['inputs', 'outputs'] as const) {
      const hint = Object.assign(document.createElement('p'), { className: 'field-hint' });
      hint.dataset.hintFor = field;
      form.querySelector(`[data-error-for="${field}"]`)!.after(hint);
    }
  }

  show(agent: AgentBody): void {
    this.clearErrors();
    for (const field of ['inputs', 'outputs'] as const) {
      this.form.querySelector<HTMLElement>(`[data-hint-for="${field}"]`)!.textContent = definitionHints(
        agent[field],
        field === 'inputs' ? 'input' : 'output',
      ).join('\n');
    }
    this.#control('name').value = agent.name;
    this.#control('inputs').value = prettyVariables(agent.inputs);
    this.#control('outputs').value = prettyVariables(agent.outputs);
    this.#control('rules').value = agent.rules.join('\n');
  }

  /** The agent as typed, or null (with the fault shown) when a field is not valid JSON. */
  read(): AgentBody | null {
    this.clearErrors();
    const variables = (field: 'inputs' | 'outputs') => {
      try {
        return JSON.parse(this.#control(field).value) as AgentBody['inputs'];
      } catch (error) {
        this.#showError(field, `This is not valid JSON: ${(error as Error).message}`);
        return null;
      }
    };
    const inputs = variables('inputs');
    const outputs = variables('outputs');
    if (!inputs || !outputs) return null;
    const lines = this.#control('rules')
      .value.split('\n')
      .map((line) => line.trim());
    this.#ruleLines = lines.flatMap((line, index) => (line === '' ? [] : [index]));
    const rules = this.#ruleLines.map((index) => lines[index]!);
    return { name: this.#control('name').value.trim(), inputs, outputs, rules };
  }

  /** Puts each issue under its field; `rules[2]` becomes "Rule on line 3: …" (the line in the box) under the rules. */
  showIssues(message: string, issues: readonly ValidationIssue[]): void {
    this.clearErrors();
    const placed = issues.filter((issue) => {
      const path = String(issue.path);
      const field = fields.find((name) => path === name || path.startsWith(`${name}.`) || path.startsWith(`${name}[`));
      if (!field) return false;
      const rule = /^rules[.[](\d+)/.exec(path);
      const where = rule ? `Rule on line ${this.#lineOfRule(Number(rule[1]))}: ` : path === field ? '' : `${path.slice(field.length + 1).replace(/]$/, '')}: `;
      this.#showError(field, where + issue.message);
      return true;
    });
    if (placed.length === 0) this.#showError('general', message);
  }

  #lineOfRule(rule: number): number {
    return (this.#ruleLines[rule] ?? rule) + 1;
  }

  clearErrors(): void {
    for (const element of this.form.querySelectorAll<HTMLElement>('[data-error-for]')) element.textContent = '';
    for (const control of this.form.querySelectorAll('.invalid')) control.classList.remove('invalid');
  }

  #control(field: Field): HTMLInputElement | HTMLTextAreaElement {
    return this.form.elements.namedItem(field) as HTMLInputElement | HTMLTextAreaElement;
  }

  #showError(field: Field | 'general', text: string): void {
    const slot = this.form.querySelector<HTMLElement>(`[data-error-for="${field}"]`)!;
    slot.textContent = slot.textContent ? `${slot.textContent}\n${text}` : text;
    if (field !== 'general') this.#control(field).classList.add('invalid');
  }
}

/**
 * What sets as written do that a person rarely means, each with the way to write what they likely
 * meant: two sets with the same points (rules on one are rules on the other, so the answer cannot
 * tell them apart), and a 2-point slope centred on its variable's range, which always rises
 * (docs/ENGINE.md, "Membership"): a falling one over that span is the triangle [low, low, high].
 */
export function definitionHints(variables: AgentBody['inputs'], kind: 'input' | 'output'): string[] {
  const hints: string[] = [];
  for (const [variable, sets] of Object.entries(variables)) {
    // only the fuzzy.ai arrays have points that make the variable's range; a term kind names its own
    const arrays = Object.values(sets).filter((definition): definition is number[] => Array.isArray(definition));
    const points = arrays.flat();
    const range = [Math.min(...points), Math.max(...points)] as const;
    const seen = new Map<string, string>();
    for (const [set, definition] of Object.entries(sets)) {
      const key = JSON.stringify(definition);
      const twin = seen.get(key);
      if (twin !== undefined) {
        hints.push(`“${twin}” and “${set}” of ${kind} ${variable} are the same set ${key}: rules cannot tell them apart. Give each its own points.`);
        continue; // what the set does was said of its twin
      }
      seen.set(key, set);
      if (!Array.isArray(definition)) continue;
      const [low, high] = definition as [number, number];
      if (definition.length === 2 && low < high && low + high === range[0] + range[1]) {
        hints.push(
          `“${set}” of ${kind} ${variable}, [${low}, ${high}], rises from ${low} to ${high}: a 2-point slope centred on the variable's range always rises. ` +
            `For one that falls from ${low} to ${high}, write [${low}, ${low}, ${high}].`,
        );
      }
    }
  }
  return hints;
}

/** One variable per line block, one set per line: readable and still plain JSON. */
function prettyVariables(variables: AgentBody['inputs']): string {
  const blocks = Object.entries(variables).map(([variable, sets]) => {
    const lines = Object.entries(sets).map(([set, points]) => `    ${JSON.stringify(set)}: ${JSON.stringify(points)}`);
    return `  ${JSON.stringify(variable)}: {\n${lines.join(',\n')}\n  }`;
  });
  return `{\n${blocks.join(',\n')}\n}`;
}
