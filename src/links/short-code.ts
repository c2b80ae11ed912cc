import { RESERVED_SEGMENTS } from '../common/http/route-table.js';
import { randomBase62 } from '../common/random.js';

/** Length of generated codes: 62^7 ≈ 3.5 × 10^12 possibilities, so collisions stay rare. */
export const GENERATED_CODE_LENGTH = 7;
export const CUSTOM_CODE_MIN_LENGTH = 3;
export const CUSTOM_CODE_MAX_LENGTH = 64;

/**
 * First path segments the service serves itself (the route table's): a link with one of these
 * codes could never be reached (the real route wins), so they are refused as custom codes,
 * compared case-insensitively.
 */
export const RESERVED_CODES: ReadonlySet<string> = RESERVED_SEGMENTS;

/** Every code that can exist: generated codes are a subset of the custom-code alphabet. */
const CODE_SHAPE = /^[A-Za-z0-9_-]{3,64}$/;
const CODE_CHARACTERS = /^[A-Za-z0-9_-]*$/;

/**
 * Cheap test of a code taken from a path, so `/api/links/<junk>` and `/<junk>` answer 404
 * without a database query.
 */
export function couldBeCode(value: string): boolean {
  return CODE_SHAPE.test(value);
}

export function isReservedCode(code: string): boolean {
  return RESERVED_CODES.has(code.toLowerCase());
}

/** Why a requested custom code is refused, or null when it is acceptable. */
export function customCodeProblem(code: string): string | null {
  if (code.length < CUSTOM_CODE_MIN_LENGTH || code.length > CUSTOM_CODE_MAX_LENGTH) {
    return `custom_code must be ${CUSTOM_CODE_MIN_LENGTH} to ${CUSTOM_CODE_MAX_LENGTH} characters long`;
  }
  if (!CODE_CHARACTERS.test(code)) return 'custom_code may only contain letters, digits, "_" and "-"';
  if (isReservedCode(code)) return `custom_code "${code}" is reserved`;
  return null;
}

/**
 * A fresh random code. Reserved names are skipped: "account" is 7 letters, and a generated code
 * must never be shadowed by a route.
 */
export function generateCode(random: (length: number) => string = randomBase62): string {
  for (;;) {
    const code = random(GENERATED_CODE_LENGTH);
    if (!isReservedCode(code)) return code;
  }
}
