/**
 * The one rule for an email address, wherever one comes in (sign-up, sign-in, the CLI, single
 * sign-on, the report form): trimmed, in Unicode NFC, in lower case (addresses are compared
 * case-insensitively, so they are stored that way), without control or invisible characters, at
 * most 254 characters, and shaped like name@example.com. Two addresses that look the same are
 * then the same address: no look-alike second account for a NUL, a zero-width space or another
 * way of writing "é".
 */

/** RFC 5321's limit on a path, counted here in characters. */
export const EMAIL_MAX_LENGTH = 254;

/**
 * Control (Cc: NUL, tabs, line breaks, DEL…), format (Cf: zero-width space and joiners,
 * direction overrides, the BOM, soft hyphen…), line and paragraph separators (Zl, Zp).
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/u;

export type EmailCheck =
  { ok: true; email: string } | { ok: false; reason: 'invisible' | 'too-long' | 'shape'; problem: string };

/** The form addresses are stored and compared in: trimmed, NFC, lower case. */
export function normalizeEmail(input: string): string {
  // Lower-casing can leave a string that is not NFC (a capital with a combining mark): normalise again.
  return input.trim().normalize('NFC').toLowerCase().normalize('NFC');
}

/** The address `input` names under the rule, or why it cannot be one (said to the person). */
export function checkEmail(input: string): EmailCheck {
  const email = normalizeEmail(input);
  if (INVISIBLE.test(email)) {
    return {
      ok: false,
      reason: 'invisible',
      problem:
        'This email contains an invisible or control character (such as a zero-width space). Type it again by hand.',
    };
  }
  if ([...email].length > EMAIL_MAX_LENGTH) {
    return { ok: false, reason: 'too-long', problem: `An email address has at most ${EMAIL_MAX_LENGTH} characters.` };
  }
  if (!SHAPE.test(email))
    return { ok: false, reason: 'shape', problem: 'Enter an email address like name@example.com.' };
  return { ok: true, email };
}

/**
 * The stored form of an address to look up (sign-in, the CLI's `<email>` arguments), or null
 * when no account can have it. Lenient on purpose: an account made before the rule may break it
 * (see `emailRuleBreaks`), and its owner must still be found. Only a NUL is refused outright:
 * PostgreSQL cannot store one, so asking would fail instead of finding nothing.
 */
export function emailLookupKey(input: string): string | null {
  const email = normalizeEmail(input);
  return email.includes('\u0000') ? null : email;
}

/**
 * How a stored address breaks the rule, in words (empty when it does not): for the check of
 * accounts made before the rule (`shortlink account check-emails`), which reports and never changes.
 */
export function emailRuleBreaks(stored: string): string[] {
  const breaks: string[] = [];
  const invisible = [...stored.matchAll(new RegExp(INVISIBLE.source, 'gu'))].map((match) => codePoint(match[0]));
  if (invisible.length > 0) {
    breaks.push(`an invisible or control character (${[...new Set(invisible)].join(', ')})`);
  }
  if (stored !== stored.trim()) breaks.push('spaces around it');
  if (stored !== stored.normalize('NFC')) breaks.push('not in Unicode NFC form');
  if (stored !== stored.toLowerCase()) breaks.push('not in lower case');
  if ([...stored].length > EMAIL_MAX_LENGTH) breaks.push(`longer than ${EMAIL_MAX_LENGTH} characters`);
  if (!SHAPE.test(stored.trim())) breaks.push('not shaped like name@example.com');
  return breaks;
}

/**
 * Text that came in as an address, safe to print in a message or a terminal: control and
 * invisible characters as `U+XXXX`, and long input cut short.
 */
export function printableEmail(input: string): string {
  const shown = input.replace(new RegExp(INVISIBLE.source, 'gu'), (character) => `<${codePoint(character)}>`);
  const characters = [...shown];
  return characters.length > 80 ? `${characters.slice(0, 80).join('')}…` : shown;
}

function codePoint(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}
