import { createHash, randomBytes } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';

/**
 * TOTP as the contract has it (RFC 6238: SHA-1, 6 digits, 30-second steps, one step either way
 * for clocks that drift), with otplib, and the recovery codes that stand in for it.
 */
const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** ±1 step: otplib's tolerance is in seconds. */
const TOLERANCE_SECONDS = PERIOD_SECONDS;

export const RECOVERY_CODE_COUNT = 10;
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** A new secret: 20 random bytes (160 bits, RFC 4226's recommendation), base32. */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** Whether a value can be a secret this service made (base32, 32 characters). */
export function isTotpSecret(value: string): boolean {
  return /^[A-Z2-7]{32}$/.test(value);
}

/** The `otpauth://` URI an authenticator app reads from the QR code. */
export function totpUri(secret: string, email: string, issuer: string): string {
  return generateURI({ issuer, label: email, secret, algorithm: 'sha1', digits: DIGITS, period: PERIOD_SECONDS });
}

/** A code as people type it: digits, spaces and dashes allowed around them. */
export function normalizeTotpCode(code: string): string | null {
  const digits = code.replace(/[\s-]/g, '');
  return /^\d{6}$/.test(digits) ? digits : null;
}

/**
 * The time step `code` belongs to when it is right for `secret` now (±1 step) and newer than
 * `afterStep` (a code is accepted once: the step of the last one accepted is kept), else null.
 */
export async function acceptedTotpStep(
  secret: string,
  code: string,
  afterStep: number | null,
  now = Date.now(),
): Promise<number | null> {
  const token = normalizeTotpCode(code);
  if (!token) return null;
  const currentStep = Math.floor(now / 1000 / PERIOD_SECONDS);
  // otplib refuses an afterTimeStep beyond the window; a stored step that far ahead accepts nothing.
  if (afterStep !== null && afterStep > currentStep + 1) return null;
  const result = await verify({
    secret,
    token,
    epoch: Math.floor(now / 1000),
    period: PERIOD_SECONDS,
    digits: DIGITS,
    algorithm: 'sha1',
    epochTolerance: TOLERANCE_SECONDS,
    ...(afterStep === null ? {} : { afterTimeStep: afterStep }),
  });
  // The code's own step: the current one moved by how far the app's clock is off.
  return result.valid ? currentStep + result.delta : null;
}

/** Ten new recovery codes, `xxxxx-xxxxx` (about 49 bits each), shown once. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((byte) => RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length]);
    return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
  });
}

/** A recovery code as stored: the SHA-256 of its letters and digits, lower case. */
export function hashRecoveryCode(code: string): string {
  return createHash('sha256')
    .update(code.toLowerCase().replace(/[^a-z0-9]/g, ''))
    .digest('hex');
}

/** Whether typed text has the shape of a recovery code (so it is not mistaken for a TOTP code). */
export function looksLikeRecoveryCode(code: string): boolean {
  return /^[a-z0-9]{10}$/.test(code.toLowerCase().replace(/[\s-]/g, ''));
}
