import type { FuzzboxDatabase } from './database.js';
import type { AccountRecord } from '../records.js';

/** The account and its tally (nothing stored yet), in one transaction. */
export async function addAccount(db: FuzzboxDatabase, account: AccountRecord): Promise<void> {
  await db.transaction('rw', db.accounts, db.tallies, async () => {
    await db.accounts.add(account);
    await db.tallies.add({ userID: account.userID, evaluations: 0, feedback: 0 });
  });
}

export function findAccountByKeyHash(db: FuzzboxDatabase, keyHash: string): Promise<AccountRecord | undefined> {
  return db.accounts.where('keyHash').equals(keyHash).first();
}
