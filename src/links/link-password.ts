import { ValidateBy, type ValidationOptions } from 'class-validator';
import { ApiError } from '../common/errors/api-error.js';

/**
 * A new link password: 8 to 256 characters. The contract said 4 until issue 54: a 4-character
 * password falls to a few thousand guesses, which the per-link limit lets through in days.
 */
export const LINK_PASSWORD_MIN_LENGTH = 8;
export const LINK_PASSWORD_MAX_LENGTH = 256;
/**
 * The shortest password a link may have: those set before issue 54 (4 to 7 characters) keep
 * working until their owner changes them; only new ones must have 8.
 */
export const STORED_LINK_PASSWORD_MIN_LENGTH = 4;

/**
 * Distinct passwords one bulk call may hash. Each hash is scrypt as for account passwords
 * (about 128 MiB and a few hundred milliseconds of CPU, on purpose); links of one call that share
 * a password share its hash, so a campaign of 1,000 links behind one password costs one.
 */
export const MAX_BULK_PASSWORDS = 10;

/**
 * `password` as sent: undefined when absent (unchanged), null for `null` (none; on update it
 * removes the link's), else the password. Refused with 400 `validation_failed` naming the field:
 * anything but a string of 8 to 256 characters.
 */
export function parsePassword(input: unknown, field = 'password'): string | null | undefined {
  if (input === undefined || input === null) return input;
  const problem = passwordProblem(input, field);
  if (problem !== undefined) throw ApiError.validationFailed(problem, [{ field, message: problem }]);
  return input as string;
}

/** Why `input` (not null) cannot be a link's password, as a message naming `field`; undefined when it can. */
export function passwordProblem(input: unknown, field = 'password'): string | undefined {
  if (typeof input !== 'string') return `${field} must be a string (or null for none)`;
  if (input.length < LINK_PASSWORD_MIN_LENGTH)
    return `${field} must be at least ${LINK_PASSWORD_MIN_LENGTH} characters long`;
  if (input.length > LINK_PASSWORD_MAX_LENGTH)
    return `${field} must be at most ${LINK_PASSWORD_MAX_LENGTH} characters long`;
  return undefined;
}

/** The DTO check of a `password` field: `passwordProblem`'s one message, or none for null. */
export function IsLinkPassword(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isLinkPassword',
      validator: {
        validate: (value: unknown) => value === undefined || value === null || passwordProblem(value) === undefined,
        defaultMessage: (args) => passwordProblem(args?.value, args?.property) ?? '',
      },
    },
    options,
  );
}
