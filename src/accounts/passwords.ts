import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

// OWASP's scrypt recommendation (N=2^17, r=8, p=1): 128 MiB of memory per hash.
const PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const MAX_MEMORY = 256 * 1024 * 1024;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: MAX_MEMORY };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/**
 * zxcvbn's lowest score a new password may have: 3 means it takes at least 10^8 guesses with
 * its common-password, name and word lists and its pattern rules (keyboard walks, repeats,
 * dates, l33t). NIST SP 800-63B asks for a check against common and breached passwords rather
 * than composition rules; this is that check, with the lists a maintained package ships.
 */
const MIN_STRENGTH = 3;

type Strength = (password: string, userInputs: string[]) => { score: number; feedback: { warning: string | null } };

/**
 * The estimator with its dictionaries (about 2 MiB of lists and 20 MiB of memory once built),
 * loaded on the first password that is set, not when the service starts.
 */
let estimator: Promise<Strength> | undefined;
function strengthEstimator(): Promise<Strength> {
  estimator ??= Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common')]).then(
    ([{ ZxcvbnFactory }, common]) => {
      const factory = new ZxcvbnFactory({
        dictionary: { ...common.dictionary },
        graphs: common.adjacencyGraphs,
        maxLength: PASSWORD_MAX_LENGTH,
      });
      return (password, userInputs) => factory.check(password, userInputs);
    },
  );
  return estimator;
}

/** Why zxcvbn marked a password down, said for people (its own wording ships in another package). */
const WEAKNESS: Record<string, string> = {
  topTen: 'This is one of the most used passwords.',
  topHundred: 'This is one of the most used passwords.',
  common: 'This is a commonly used password.',
  similarToCommon: 'This is too close to a commonly used password.',
  wordByItself: 'A single word is easy to guess.',
  namesByThemselves: 'A name on its own is easy to guess.',
  commonNames: 'Common names and surnames are easy to guess.',
  straightRow: 'A row of keys on the keyboard is easy to guess.',
  keyPattern: 'A pattern of keys on the keyboard is easy to guess.',
  simpleRepeat: 'Repeated characters like "aaa" are easy to guess.',
  extendedRepeat: 'Repeated groups of characters like "abcabc" are easy to guess.',
  sequences: 'Sequences like "abc" or "6543" are easy to guess.',
  recentYears: 'Recent years are easy to guess.',
  dates: 'Dates are easy to guess.',
  userInputs: 'Do not use your email address in your password.',
  pwned: 'This password has appeared in a data breach.',
};

/**
 * Why a new password is refused, or null: its length (8–256), then whether it is the email or
 * contains it (or the part before the @), then whether it is among common and breached
 * passwords or easy to guess from patterns.
 */
export async function passwordProblem(password: string, email?: string): Promise<string | null> {
  if (password.length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  const lowered = password.toLowerCase();
  const address = email?.trim().toLowerCase() ?? '';
  const localPart = address.split('@', 1)[0] ?? '';
  if (address !== '' && (lowered.includes(address) || (localPart.length >= 4 && lowered.includes(localPart)))) {
    return 'Do not use your email address in your password.';
  }
  const result = (await strengthEstimator())(password, address === '' ? [] : [address, localPart]);
  if (result.score >= MIN_STRENGTH) return null;
  const why = (result.feedback.warning && WEAKNESS[result.feedback.warning]) ?? 'It is easy to guess.';
  return `${why} Choose a longer password, e.g. a few unrelated words.`;
}

/** `scrypt$N$r$p$salt$key` (base64url): the parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key || password.length > PASSWORD_MAX_LENGTH) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * Stands in for a missing account's hash so an unknown email costs the same time as a wrong
 * password (made once, lazily).
 */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}
