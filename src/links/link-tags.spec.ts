import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ApiError } from '../common/errors/api-error.js';
import { CreateLinkDto } from './dto/create-link.dto.js';
import { parseTags, tagListProblem, tagProblem } from './link-tags.js';

function rejection(input: unknown): ApiError {
  try {
    parseTags(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

describe('parseTags', () => {
  it.each([
    [[], []],
    [['news'], ['news']],
    [
      ['spring-sale', 'News', '2026'],
      ['2026', 'news', 'spring-sale'],
    ],
    // Duplicates after case folding count once.
    [['News', 'news', 'NEWS'], ['news']],
    [['a'.repeat(32)], ['a'.repeat(32)]],
    [Array.from({ length: 10 }, (_, i) => `t${i}`), Array.from({ length: 10 }, (_, i) => `t${i}`)],
  ])('takes %j as %j', (input, expected) => {
    const sut = parseTags(input);

    expect(sut).toEqual(expected);
  });

  it('leaves absent tags absent (unchanged on update)', () => {
    expect(parseTags(undefined)).toBeUndefined();
  });

  it.each([
    ['null', null, 'must be an array of tags'],
    ['a string', 'news', 'must be an array of tags'],
    ['an object', { tag: 'news' }, 'must be an array of tags'],
    ['11 tags', Array.from({ length: 11 }, (_, i) => `t${i}`), 'at most 10 tags (11 given)'],
    ['11 items, duplicates among them', [...Array.from({ length: 10 }, (_, i) => `t${i}`), 'T0'], 'at most 10 tags'],
    ['a number', ['news', 7], 'strings only'],
    ['null inside', [null], 'strings only'],
    ['an empty tag', [''], '"" is not'],
    ['a space', ['spring sale'], '"spring sale" is not'],
    ['a leading space', [' news'], '" news" is not'],
    ['33 characters', ['a'.repeat(33)], 'is not'],
    ['an emoji', ['🙂'], '"🙂" is not'],
    ['an underscore', ['spring_sale'], 'is not'],
    ['a non-ASCII letter', ['straße'], 'is not'],
    // toLowerCase() folds the Kelvin sign into an ASCII "k": not a letter of the alphabet all the same.
    ['the Kelvin sign', ['\u212a'], 'is not'],
  ])('refuses %s with validation_failed naming the field', (_case, input, message) => {
    const sut = rejection(input);

    expect(sut.getStatus()).toBe(400);
    expect(sut.errorName).toBe('validation_failed');
    expect(sut.detail).toContain(message);
    expect(sut.fieldErrors).toEqual([{ field: 'tags', message: sut.detail }]);
  });

  it('quotes a long bad tag cut short', () => {
    expect(tagListProblem(['x'.repeat(500)])).toBe(
      `tags must each be 1 to 32 letters (a-z), digits or hyphens: "${'x'.repeat(40)}…" is not`,
    );
  });
});

describe('tagProblem', () => {
  it.each(['news', 'News', 'a', 'x'.repeat(32), '2026-q1'])('accepts %j', (tag) => {
    expect(tagProblem(tag)).toBeUndefined();
  });

  it.each(['', 'a b', 'x'.repeat(33), ['news'], undefined, 'ä'])('refuses %j', (tag) => {
    expect(tagProblem(tag)).toBe('tag must be 1 to 32 letters (a-z), digits or hyphens');
  });
});

describe('IsTagList on CreateLinkDto', () => {
  const problems = (body: Record<string, unknown>) =>
    validateSync(plainToInstance(CreateLinkDto, { url: 'https://example.com/', ...body }), {
      whitelist: true,
      forbidNonWhitelisted: true,
    }).map((error) => Object.values(error.constraints ?? {}));

  it('passes absent and valid tags', () => {
    expect(problems({})).toEqual([]);
    expect(problems({ tags: ['News', 'news'] })).toEqual([]);
  });

  it('refuses null and bad lists with the same message the service gives', () => {
    expect(problems({ tags: null })).toEqual([['tags must be an array of tags ([] for none)']]);
    expect(problems({ tags: ['a b'] })).toEqual([[tagListProblem(['a b'])]]);
  });
});
