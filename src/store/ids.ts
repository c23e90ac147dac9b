// Ids. Agents and versions: 26 characters of Crockford base32, 48 bits of milliseconds then 80
// random bits, incremented within one millisecond. URL-safe, opaque, and sortable by creation,
// so an index ordered by id lists records oldest first. Evaluations: UUIDs numbered in chunks (newEvaluationIDs).
const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const randomBits = 80n;

let lastTime = -1;
let lastRandom = 0n;

function encode(value: bigint, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) {
    text = alphabet[Number(value & 31n)] + text;
    value >>= 5n;
  }
  return text;
}

function randomBigInt(): bigint {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(10));
  return bytes.reduce((value, byte) => (value << 8n) | BigInt(byte), 0n);
}

export function newId(now = Date.now()): string {
  if (now <= lastTime) {
    lastRandom = (lastRandom + 1n) & ((1n << randomBits) - 1n);
  } else {
    lastTime = now;
    lastRandom = randomBigInt() >> 1n; // room to count up within one millisecond
  }
  return encode(BigInt(lastTime), 10) + encode(lastRandom, 16);
}

/** ISO 8601 with milliseconds, UTC, as every `createdAt` in the interface. */
export function timestamp(): string {
  return new Date().toISOString();
}

/** Now, or 1 ms after `previous` if the clock has not moved past it: each PUT gets a new updatedAt. */
export function timestampAfter(previous: string): string {
  const now = Date.now();
  const last = Date.parse(previous);
  return new Date(now > last ? now : last + 1).toISOString();
}

/**
 * At most this many logs per group record. Fewer records make a batch cheaper to write (IndexedDB
 * costs per record); smaller ones make one log of it cheaper to read, give feedback on or delete.
 * 64 keeps a 4096 batch at 64 records and any one log's read within a few logs' cost
 * (docs/BROWSER.md, "Flat costs").
 */
export const LOG_CHUNK = 64;

/** The hex digits that end a new evaluation id: its position in its chunk (two: up to 256 ≥ LOG_CHUNK). */
const POSITION_DIGITS = 2;

/** What the ids of one chunk of a request share: an id without its position digits. */
export const idPrefix = (reqID: string) => reqID.slice(0, -POSITION_DIGITS);

/**
 * Ids for `count` new evaluations of one request: UUID v4s where each LOG_CHUNK in a row share all
 * but their last two hex digits, which number them 00, 01, … within the chunk (114 random bits
 * then, not 122). `groupLogs` puts those logs in one record, found by the one prefix they share:
 * one index entry per chunk rather than one per log, which was most of a batch's write
 * (docs/REST.md, "Log groups").
 */
export function newEvaluationIDs(count: number): string[] {
  const ids: string[] = [];
  let prefix = '';
  for (let i = 0; i < count; i++) {
    const position = i % LOG_CHUNK;
    if (position === 0) prefix = idPrefix(globalThis.crypto.randomUUID());
    ids.push(prefix + position.toString(16).padStart(POSITION_DIGITS, '0'));
  }
  return ids;
}
