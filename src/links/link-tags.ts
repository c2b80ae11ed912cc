import { ValidateBy, type ValidationOptions } from 'class-validator';
import { ApiError } from '../common/errors/api-error.js';

/** Tags a link may have, and items a `tags` array may hold (duplicates included). */
export const MAX_TAGS = 10;
export const MAX_TAG_LENGTH = 32;
/** A tag as a client may send it: upper case letters are stored folded to lower case. */
export const TAG_PATTERN = `^[A-Za-z0-9-]{1,${MAX_TAG_LENGTH}}$`;
const TAG = new RegExp(TAG_PATTERN);

const TAG_RULE = `1 to ${MAX_TAG_LENGTH} letters (a-z), digits or hyphens`;

/** A value as a message quotes it: JSON, so spaces, quotes and control characters show; cut short. */
function quote(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

/**
 * Why `input` is not a list of tags, as a message naming `field`; undefined when it is one. A
 * list of tags is an array of at most MAX_TAGS strings, each 1 to 32 characters of `[A-Za-z0-9-]`
 * (ASCII only: `toLowerCase()` would fold a few other characters, e.g. the Kelvin sign, into
 * ASCII letters). `null` is not a list: no tags is `[]`.
 */
export function tagListProblem(input: unknown, field = 'tags'): string | undefined {
  if (!Array.isArray(input)) return `${field} must be an array of tags ([] for none)`;
  if (input.length > MAX_TAGS) return `${field} must hold at most ${MAX_TAGS} tags (${input.length} given)`;
  for (const item of input) {
    if (typeof item !== 'string') return `${field} must hold strings only`;
    if (!TAG.test(item)) return `${field} must each be ${TAG_RULE}: ${quote(item)} is not`;
  }
  return undefined;
}

/**
 * The tags a link is to have, from `tags` as sent: undefined when absent (unchanged), else folded
 * to lower case, each once, sorted. Refused with 400 `validation_failed` naming `field` as
 * `tagListProblem` says.
 */
export function parseTags(input: unknown, field = 'tags'): string[] | undefined {
  if (input === undefined) return undefined;
  const problem = tagListProblem(input, field);
  if (problem) throw ApiError.validationFailed(problem, [{ field, message: problem }]);
  return [...new Set((input as string[]).map((tag) => tag.toLowerCase()))].sort();
}

/** Why `input` is not one tag (the `?tag=` filter), naming `field`; undefined when it is one. */
export function tagProblem(input: unknown, field = 'tag'): string | undefined {
  return typeof input === 'string' && TAG.test(input) ? undefined : `${field} must be ${TAG_RULE}`;
}

/** The class-validator form of `tagListProblem`, for request DTOs (a `null` is refused too). */
export function IsTagList(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isTagList',
      validator: {
        validate: (value) => tagListProblem(value) === undefined,
        defaultMessage: (args) => tagListProblem(args?.value, args?.property) ?? '',
      },
    },
    options,
  );
}

/** The class-validator form of `tagProblem`. */
export function IsTag(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isTag',
      validator: {
        validate: (value) => tagProblem(value) === undefined,
        defaultMessage: (args) => tagProblem(args?.value, args?.property) ?? '',
      },
    },
    options,
  );
}
