import { ApiError } from '../schema/errors.js';
import type { ServiceState } from './context.js';
import { toBase64url } from '../core/base64url.js';

const KEY_CACHE_CAPACITY = 1000;

const unauthorized = (message: string) =>
  new ApiError('Unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer' } });

export async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** A new API key: 32 random bytes, base64url, with a prefix that makes leaked keys recognisable. */
export function newApiKey(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(32));
  return `fzb_${toBase64url(bytes)}`;
}

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
