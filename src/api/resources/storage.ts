import type { StorageStatus } from '../../schema/storage.js';
import type { Context } from '../context.js';
import { json } from '../http.js';

async function unknownOnFailure<T>(ask: () => Promise<T> | undefined): Promise<T | undefined> {
  try {
    return await ask();
  } catch {
    return undefined;
  }
}

/** GET /storage: the origin's usage, quota and persistence as the browser reports them, and the caller's counts. */
export async function readStorage({ service, userID }: Context): Promise<Response> {
  const manager = service.storageManager;
  // what the platform cannot tell (a method missing or refusing) is null, like without a manager
  const [estimate, persisted, counts] = await Promise.all([
    unknownOnFailure(() => manager?.estimate?.()),
    unknownOnFailure(() => manager?.persisted?.()),
    service.store.countRecords(userID),
  ]);
  const status: StorageStatus = {
    usage: estimate?.usage ?? null,
    quota: estimate?.quota ?? null,
    persisted: persisted ?? null,
    counts,
  };
  return json(status);
}
