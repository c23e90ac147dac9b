function findCause(error: unknown, name: string, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const candidate = error as { name?: unknown; inner?: unknown; cause?: unknown; failures?: unknown };
  if (candidate.name === name) return true;
  const failures = Array.isArray(candidate.failures) ? candidate.failures : [];
  return [candidate.inner, candidate.cause, ...failures].some((inner) => findCause(inner, name, depth + 1));
}

/** Whether `error` (or what Dexie wrapped in it) is IndexedDB's full disk: the transaction was aborted. */
export function isQuotaExceeded(error: unknown): boolean {
  return findCause(error, 'QuotaExceededError');
}
