import { toBase64url } from './base64url.js';

/** An API key's SHA-256 in hex: what an account stores instead of the key. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** A new API key: 32 random bytes, base64url, with a prefix that makes leaked keys recognisable. */
export function newApiKey(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(32));
  return `fzb_${toBase64url(bytes)}`;
}
