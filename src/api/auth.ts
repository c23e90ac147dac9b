import { ApiError } from '../schema/errors.js';
import type { ServiceState } from './context.js';
import { sha256Hex } from '../core/keys.js';

const KEY_CACHE_CAPACITY = 1000;

const unauthorized = (message: string) => new ApiError('Unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer' } });

function presentedKey(request: Request, url: URL): string {
  const header = request.headers.get('authorization');
  if (header !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header.trim());
    if (!match) throw unauthorized('the Authorization header must be "Bearer <API key>"');
    return match[1]!;
  }
  const token = url.searchParams.get('access_token');
  if (token) return token;
  throw unauthorized('an API key is required: send "Authorization: Bearer <API key>" or ?access_token=<API key> (POST /account creates one)');
}

/** The userID the request's API key belongs to, or a 401. */
export async function authenticate(service: ServiceState, request: Request, url: URL): Promise<string> {
  const key = presentedKey(request, url);
  const cached = service.keyCache.get(key);
  if (cached) return cached;
  const account = await service.store.findAccountByKeyHash(await sha256Hex(key));
  if (!account) throw unauthorized('unknown API key');
  if (service.keyCache.size >= KEY_CACHE_CAPACITY) service.keyCache.clear();
  service.keyCache.set(key, account.userID);
  return account.userID;
}
