// Persistent storage is granted to pages only (`navigator.storage.persist()` does not exist in
// workers): without it the browser may evict the origin's IndexedDB, every account's logs with
// it, when the disk runs low.

/**
 * Asks the browser to keep this origin's storage until the user clears it. Resolves to whether
 * it is persistent now (browsers grant it to installed or often-used sites, or ask the user);
 * false where the browser offers no storage manager.
 */
export async function requestPersistence(): Promise<boolean> {
  const storage = globalThis.navigator?.storage;
  if (!storage?.persist) return false;
  return (await storage.persisted()) || storage.persist();
}
