import { accountBodySchema, type Account } from '../../schema/account.js';
import { ApiError, validationError } from '../../schema/errors.js';
import { newId, timestamp } from '../../store/ids.js';
import type { FuzzboxStore } from '../../store/store.js';
import { newApiKey, sha256Hex } from '../../core/keys.js';
import type { Context } from '../context.js';
import { json } from '../http.js';

/** Creates an account; the API key is returned here once and only its SHA-256 is kept. */
export async function openAccount(store: FuzzboxStore, name: string | null): Promise<Account> {
  const apiKey = newApiKey();
  const account = { userID: newId(), name, createdAt: timestamp() };
  await store.addAccount({ ...account, keyHash: await sha256Hex(apiKey) });
  return { userID: account.userID, name, apiKey, createdAt: account.createdAt };
}

/** POST /account */
export async function createAccount({ body, service }: Context): Promise<Response> {
  if (!service.signup) {
    throw new ApiError('Forbidden', 'sign-up is switched off in this app; ask the app for an API key');
  }
  const parsed = accountBodySchema.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error, 'account');
  return json(await openAccount(service.store, parsed.data?.name ?? null));
}
