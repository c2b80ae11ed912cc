import { randomBytes } from 'node:crypto';

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes are drawn from the operating system 4 KiB at a time and handed out from there, as
 * Node's `crypto.randomUUID` does: one system call per code cost more than the rest of a
 * generated code (bulk creation makes 1000 at once). Each byte is used once.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomByte(): number {
  if (poolOffset === pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  return pool[poolOffset++];
}

/**
 * `length` characters drawn uniformly from [0-9A-Za-z] with a cryptographic source. Bytes of 248
 * and above are skipped (rejection sampling) so no character is likelier than another.
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}
