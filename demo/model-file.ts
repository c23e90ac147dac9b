// Opening a model file people already have: a MATLAB/Octave .fis, a fuzzylite .fll or an FCL
// file, dropped onto the page or chosen with the button. The file goes as it is to POST /agent
// with its format's Content-Type (docs/REST.md, "Model files"): the service reads it, and answers
// the new agent or a 400 naming the line and the construct it cannot hold.
import { MEDIA_TYPES, modelFormatOfText, type ModelFormat } from '../src/formats/index.js';

/** What the page needs to open files: where to send them, with whose key, and what to do next. */
export interface ModelFileTarget {
  /** The REST interface's base (the page's directory). */
  base: URL;
  /** The account's key, as the typed client sends it. */
  apiKey(): string;
  /** Called with the new agent's id and the file's name once it is stored. */
  opened(agentID: string, fileName: string): Promise<void>;
}

const extensions: Record<string, ModelFormat> = { '.fis': 'fis', '.fll': 'fll', '.fcl': 'fcl' };

/** The format of a file: its extension's, else what its first statement looks like; undefined for neither. */
export function modelFormatOfFile(fileName: string, text: string): ModelFormat | undefined {
  const dot = fileName.lastIndexOf('.');
  return (dot >= 0 ? extensions[fileName.slice(dot).toLowerCase()] : undefined) ?? modelFormatOfText(text);
}

/** The service's refusal in words: its message (which names the line), then each issue somewhere else ("rules[2]: …"). */
function refusal(fileName: string, body: { message?: string; issues?: Array<{ path: string; message: string }> } | undefined, status: number): string {
  if (!body?.message) return `${fileName} could not be opened (the service answered ${status}).`;
  const issues = (body.issues ?? []).filter(({ path }) => !body.message!.includes(path)).map(({ path, message }) => `${path}: ${message}`);
  return [`${fileName} could not be opened: ${body.message}`, ...issues].join('\n');
}

/**
 * The "Open model file…" button, and the whole page as a drop target: while a file is dragged
 * over it the page says what it takes. `message` shows what went wrong, or is emptied.
 */
export function mountModelFiles(button: HTMLButtonElement, message: HTMLElement, target: ModelFileTarget): void {
  const chooser = Object.assign(document.createElement('input'), { type: 'file', accept: '.fis,.fll,.fcl', multiple: true, hidden: true });
  button.after(chooser);
  button.addEventListener('click', () => chooser.click());
  chooser.addEventListener('change', () => {
    void openFiles([...(chooser.files ?? [])]);
    chooser.value = ''; // the same file again is a new choice
  });

  const carriesFiles = (event: DragEvent) => event.dataTransfer?.types.includes('Files') ?? false;
  let depth = 0; // dragenter/dragleave fire for every element crossed
  document.addEventListener('dragenter', (event) => {
    if (!carriesFiles(event)) return;
    depth++;
    document.body.dataset.dropping = '';
  });
  document.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) delete document.body.dataset.dropping;
  });
  document.addEventListener('dragover', (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault(); // else the browser opens the file itself
    event.dataTransfer!.dropEffect = 'copy';
  });
  document.addEventListener('drop', (event) => {
    depth = 0;
    delete document.body.dataset.dropping;
    if (!carriesFiles(event)) return;
    event.preventDefault();
    void openFiles([...(event.dataTransfer?.files ?? [])]);
  });

  async function openFiles(files: File[]): Promise<void> {
    message.textContent = '';
    const problems: string[] = [];
    for (const file of files) {
      const problem = await openFile(file);
      if (problem) problems.push(problem);
    }
    message.textContent = problems.join('\n\n');
  }

  /** Stores one file as a new agent and shows it; the problem in words when it cannot be. */
  async function openFile(file: File): Promise<string | undefined> {
    const text = await file.text();
    const format = modelFormatOfFile(file.name, text);
    if (!format) return `${file.name} is not a model file fuzzbox reads: open a .fis (MATLAB, Octave), .fll (fuzzylite) or .fcl file.`;
    const response = await fetch(new URL('agent', target.base), {
      method: 'POST',
      headers: { Authorization: `Bearer ${target.apiKey()}`, 'Content-Type': MEDIA_TYPES[format] },
      body: text,
    });
    const body = (await response.json().catch(() => undefined)) as
      | { id?: string; message?: string; issues?: Array<{ path: string; message: string }> }
      | undefined;
    if (!response.ok || !body?.id) return refusal(file.name, body, response.status);
    await target.opened(body.id, file.name);
    return undefined;
  }
}
