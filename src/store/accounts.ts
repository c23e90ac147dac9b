import type { FuzzboxDatabase } from './database.js';
import type { AccountRecord } from './records.js';

export async function addAccount(db: FuzzboxDatabase, account: AccountRecord): Promise<void> {
  await db.accounts.add(account);
}

export function findAccountByKeyHash(db: FuzzboxDatabase, keyHash: string): Promise<AccountRecord | undefined> {
  return db.accounts.where('keyHash').equals(keyHash).first();
}
