// Makes fake-indexeddb's object stores fail writes, as a full disk or a broken store would,
// so tests can prove a failed request leaves the database as it was.
import { IDBDatabase, IDBObjectStore } from 'fake-indexeddb';

type WriteMethod = 'add' | 'put' | 'delete' | 'clear';

export interface FaultOptions {
  /** which writes fail; default add and put */
  methods?: WriteMethod[];
  /** let this many writes succeed first; default 0 */
  after?: number;
}

/**
 * Until the returned `restore()` is called, `methods` calls on the object store `storeName`
 * (past the first `after`) throw `error()`: a fresh DOMException each time, as IndexedDB raises them.
 */
export function failWrites(storeName: string, error: () => Error, { methods = ['add', 'put'], after = 0 }: FaultOptions = {}): () => void {
  let calls = 0;
  const prototype = IDBObjectStore.prototype as unknown as Record<WriteMethod, (...args: unknown[]) => unknown>;
  const originals = methods.map((method) => [method, prototype[method]] as const);
  for (const [method, original] of originals) {
    prototype[method] = function (this: { name: string }, ...args: unknown[]) {
      if (this.name === storeName && ++calls > after) throw error();
      return original.apply(this, args);
    };
  }
  return () => {
    for (const [method, original] of originals) prototype[method] = original;
  };
}

export const quotaExceeded = () => new DOMException('the quota has been exceeded', 'QuotaExceededError');
export const brokenStore = () => new DOMException('the store failed', 'UnknownError');

/**
 * Firefox after a full disk: until `restore()`, the next `count` read-write transactions started
 * come in its `cleanup` mode, where an add or put throws InvalidStateError (only deletes run).
 * Resolves nothing; `cleanups()` tells how many were handed out.
 */
export function cleanupTransactions(count: number): { restore: () => void; cleanups: () => number } {
  const prototype = IDBDatabase.prototype as unknown as { transaction: (...args: unknown[]) => IDBTransaction };
  const original = prototype.transaction;
  let handedOut = 0;
  prototype.transaction = function (this: unknown, ...args: unknown[]) {
    const transaction = original.apply(this, args);
    if (transaction.mode !== 'readwrite' || handedOut >= count) return transaction;
    handedOut++;
    Object.defineProperty(transaction, 'mode', { value: 'cleanup' });
    const objectStore = transaction.objectStore.bind(transaction);
    transaction.objectStore = (name: string) => {
      const store = objectStore(name);
      const refuse = () => {
        throw new DOMException('A mutation operation was attempted on a database that did not allow mutations.', 'InvalidStateError');
      };
      return Object.assign(store, { add: refuse, put: refuse });
    };
    return transaction;
  };
  return { restore: () => void (prototype.transaction = original), cleanups: () => handedOut };
}
