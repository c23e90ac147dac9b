import { timestamp } from '../../store/ids.js';
import { backupStream, NDJSON, storeBackup } from '../../core/backup-stream.js';
import type { Context } from '../context.js';
import { json } from '../http.js';

/** GET /export: the caller's account as NDJSON, streamed as it is read. */
export async function exportAccount({ service, userID }: Context): Promise<Response> {
  const exportedAt = timestamp();
  const body = backupStream(service.store.exportRecords(userID), exportedAt);
  const fileName = `fuzzbox-backup-${exportedAt.slice(0, 19).replace(/:/g, '-')}.ndjson`;
  return new Response(body, {
    headers: { 'Content-Type': NDJSON, 'Content-Disposition': `attachment; filename="${fileName}"` },
  });
}

/** POST /import: a backup into the caller's account (`storeBackup`). */
export async function importAccount({ request, service, userID }: Context): Promise<Response> {
  return json(await storeBackup(request.headers.get('content-type'), request.body, (batch) => service.store.importRecords(userID, batch)));
}
