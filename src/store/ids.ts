// Agent and version ids: 26 characters of Crockford base32, 48 bits of milliseconds then 80
// random bits, incremented within one millisecond. URL-safe, opaque, and sortable by creation,
// so an index ordered by id lists records oldest first.
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
