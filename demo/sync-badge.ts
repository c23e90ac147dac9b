// The sync badge: off unless the person gives a fuzzbox server and a key of their account there
// (the offline demo is unchanged); then when the worker last synced, what waits, what went wrong,
// and a way to sync now or turn it off (docs/SYNC.md). The worker does the syncing.
import type { FuzzyWorker, SyncStatus, WorkerSyncSettings } from '../src/client/index.js';

export interface SyncBadge {
  show(status: SyncStatus | null): void;
}

const time = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

function summary(status: SyncStatus | null): { text: string; tone: 'off' | 'busy' | 'ok' | 'error' } {
  if (!status) return { text: 'Sync off', tone: 'off' };
  if (status.syncing) return { text: 'Syncing…', tone: 'busy' };
  const waiting = `${status.pending} waiting`;
  if (status.lastError) return { text: `Sync failed · ${waiting}`, tone: 'error' };
  return { text: `${status.lastSync ? `Synced ${time(status.lastSync)}` : 'Not synced yet'} · ${waiting}`, tone: 'ok' };
}

/** `change` stores the new settings (null: off) and starts the demo again with them. */
export function mountSyncBadge(
  container: HTMLElement,
  worker: FuzzyWorker,
  settings: WorkerSyncSettings | null,
  change: (settings: WorkerSyncSettings | null) => Promise<void>,
): SyncBadge {
  container.innerHTML = `
    <details class="sync-badge">
      <summary role="status"></summary>
      <form class="sync-form">
        <p class="small">Keep this browser's agents, logs and feedback in step with a fuzzbox server
          (<code>npx fuzzbox serve --cors ${location.origin}</code>), as the account of its key. Off unless you turn it on.</p>
        <label>Server URL <input name="url" type="url" required placeholder="http://127.0.0.1:8080/"></label>
        <label>API key <input name="apiKey" required autocomplete="off" spellcheck="false"></label>
        <dl class="sync-facts">
          <dt>Last sync</dt><dd data-fact="lastSync">—</dd>
          <dt>Waiting</dt><dd data-fact="pending">—</dd>
          <dt>Last error</dt><dd data-fact="lastError">—</dd>
        </dl>
        <div class="buttons">
          <button type="submit">${settings ? 'Save' : 'Turn sync on'}</button>
          <button type="button" class="quiet" data-action="now" ${settings ? '' : 'hidden'}>Sync now</button>
          <button type="button" class="quiet" data-action="off" ${settings ? '' : 'hidden'}>Turn sync off</button>
        </div>
      </form>
    </details>`;
  const $ = <T extends HTMLElement>(selector: string) => container.querySelector<T>(selector)!;
  const form = $<HTMLFormElement>('form');
  form.url.value = settings?.url ?? '';
  form.apiKey.value = settings?.apiKey ?? '';

  const show = (status: SyncStatus | null) => {
    const { text, tone } = summary(status);
    const head = $('summary');
    head.textContent = text;
    head.dataset.tone = tone;
    head.title = status?.lastError ?? '';
    $('[data-fact="lastSync"]').textContent = status?.lastSync ? new Date(status.lastSync).toLocaleString() : '—';
    $('[data-fact="pending"]').textContent = status ? String(status.pending) : '—';
    $('[data-fact="lastError"]').textContent = status?.lastError ?? '—';
  };
  form.onsubmit = async (event) => {
    event.preventDefault();
    await change({ url: form.url.value.trim(), apiKey: form.apiKey.value.trim() });
  };
  $('[data-action="off"]').onclick = () => void change(null);
  $('[data-action="now"]').onclick = async () => show(await worker.sync.now());
  show(null);
  if (settings) void worker.sync.status().then(show);
  return { show };
}
