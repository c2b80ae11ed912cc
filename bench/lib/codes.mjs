// The links every benchmark target serves: the service's seeded database and the baselines' Maps
// are built from the same functions, so one request list hits the same codes on all of them.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CODE_LENGTH = 7;
const CODE_SPACE = 62n ** BigInt(CODE_LENGTH);
// About 0.618 × 62^7, odd and not a multiple of 31, hence coprime with 62^7: i -> i × STRIDE mod
// 62^7 is a bijection, so codes are distinct yet scattered over the whole key space like the
// service's random codes (a B-tree filled with sequential keys would flatter the database).
const STRIDE = 2_177_386_462_457n;
const OFFSET = 123_456_789n;

/**
 * The code of seeded link number `index` (0-based): 7 base62 characters, like a generated code.
 * @param {number} index
 */
export function seededCode(index) {
  let value = Number((BigInt(index) * STRIDE + OFFSET) % CODE_SPACE);
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) {
    code = ALPHABET[value % 62] + code;
    value = Math.floor(value / 62);
  }
  return code;
}

/**
 * The target of seeded link number `index`.
 * @param {number} index
 */
export function seededUrl(index) {
  return `https://example.com/articles/${index}?utm_source=shortlink`;
}

/**
 * `count` distinct indexes spread evenly over [0, links): the "popular links" a hit test cycles
 * through.
 * @param {number} links
 * @param {number} count
 */
export function spreadIndexes(links, count) {
  const n = Math.min(links, count);
  return Array.from({ length: n }, (_, i) => Math.floor((i * links) / n));
}
