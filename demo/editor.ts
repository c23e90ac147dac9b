// The agent editor: four fields, and every problem shown next to the field it belongs to,
// whether JSON.parse found it here or the service's validation found it.
import type { ValidationIssue } from '../src/engine/types.js';
import type { AgentBody } from '../src/schema/index.js';

const fields = ['name', 'inputs', 'outputs', 'rules'] as const;
type Field = (typeof fields)[number];

export class AgentEditor {
  /** The line (from 0) of the rules box each rule of the last `read()` came from, blank lines skipped. */
  #ruleLines: number[] = [];

  constructor(private readonly form: HTMLFormElement) {}

  show(agent: AgentBody): void {
    this.clearErrors();
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
    const lines = this.#control('rules').value.split('\n').map((line) => line.trim());
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

/** One variable per line block, one set per line: readable and still plain JSON. */
function prettyVariables(variables: AgentBody['inputs']): string {
  const blocks = Object.entries(variables).map(([variable, sets]) => {
    const lines = Object.entries(sets).map(([set, points]) => `    ${JSON.stringify(set)}: ${JSON.stringify(points)}`);
    return `  ${JSON.stringify(variable)}: {\n${lines.join(',\n')}\n  }`;
  });
  return `{\n${blocks.join(',\n')}\n}`;
}
