// "Your data": what the browser stores for this demo, whether it may evict it, and a backup file
// to download or restore (GET /storage, GET /export, POST /import through FuzzyClient).
import { type FuzzyClient, FuzzyApiError, requestPersistence } from '../src/client/index.js';

const count = (n: number, noun: string) => `${n.toLocaleString('en')} ${noun}${n === 1 ? '' : 's'}`;
const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Mounts the panel; the function it returns shows the counts again (call it after a write). */
export function mountDataPanel(container: HTMLElement, client: () => FuzzyClient, onRestored: () => Promise<void>): () => Promise<void> {
  container.innerHTML = `
    <h2>Your data</h2>
    <p id="storage-state" class="small" role="status">Reading storage…</p>
    <div class="buttons">
      <button type="button" id="download-backup">Download backup</button>
      <button type="button" id="restore-backup" class="quiet">Restore backup</button>
      <input type="file" id="backup-file" accept=".ndjson,application/x-ndjson" hidden>
      <button type="button" id="persist" class="quiet">Keep my data</button>
    </div>
    <p id="backup-message" class="small" role="status"></p>`;
  const $ = <T extends HTMLElement>(selector: string) => container.querySelector<T>(selector)!;
  const message = (text: string) => ($('#backup-message').textContent = text);

  async function showState(): Promise<void> {
    const { usage, quota, persisted, counts } = await client().getStorage();
    // Safari and WebKitGTK have no storage manager: nothing to show or ask for, so the backup it is
    const used = usage === null || quota === null ? 'this browser does not tell how much room it gives' : `${megabytes(usage)} of ${megabytes(quota)} used`;
    const kept =
      persisted === true
        ? 'kept until you clear it'
        : persisted === false
          ? 'may be evicted when the disk runs low'
          : "this browser does not tell whether it keeps it (Safari deletes a site's data after 7 days without a visit): download a backup";
    $('#storage-state').textContent =
      `${count(counts.agents, 'agent')}, ${count(counts.evaluations, 'evaluation')}, ${counts.feedback} feedback · ${used} · ${kept}`;
    $('#persist').hidden = persisted !== false;
  }

  $('#download-backup').onclick = async () => {
    const backup = await client().downloadBackup();
    const link = Object.assign(document.createElement('a'), {
      href: URL.createObjectURL(backup),
      download: `fuzzbox-demo-${new Date().toISOString().slice(0, 10)}.ndjson`,
    });
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    message(`Backup downloaded (${megabytes(backup.size)}).`);
  };
  $('#restore-backup').onclick = () => $('#backup-file').click();
  $<HTMLInputElement>('#backup-file').onchange = async (event) => {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    try {
      const { imported, unchanged } = await client().restoreBackup(file);
      message(`Restored ${file.name}: ${imported} records added, ${unchanged} already here.`);
      await onRestored();
    } catch (error) {
      message(error instanceof FuzzyApiError ? `Not restored: ${error.message}` : String(error));
    }
    await showState();
  };
  $('#persist').onclick = async () => {
    message((await requestPersistence()) ? 'The browser will keep this data.' : 'The browser declined; it may still evict this data when the disk runs low.');
    await showState();
  };
  void showState();
  return showState;
}
