import { jest } from '@jest/globals';
import {
  couldBeCode,
  customCodeProblem,
  generateCode,
  GENERATED_CODE_LENGTH,
  isReservedCode,
  RESERVED_CODES,
} from './short-code.js';

describe('generateCode', () => {
  it('returns 7 base62 characters', () => {
    for (let i = 0; i < 1000; i++) {
      const sut = generateCode();

      expect(sut).toMatch(/^[0-9A-Za-z]{7}$/);
      expect(sut).toHaveLength(GENERATED_CODE_LENGTH);
    }
  });

  it('returns a different code each time', () => {
    const codes = new Set(Array.from({ length: 10_000 }, () => generateCode()));

    expect(codes.size).toBe(10_000);
  });

  it('skips reserved names a random source may produce', () => {
    const draws = ['account', 'ACCOUNT', 'aB3dE9x'];
    const random = jest.fn(() => draws.shift()!);

    const sut = generateCode(random);

    expect(sut).toBe('aB3dE9x');
    expect(random).toHaveBeenCalledTimes(3);
    expect(random).toHaveBeenCalledWith(GENERATED_CODE_LENGTH);
  });

  it('every generated code passes the path check', () => {
    for (let i = 0; i < 1000; i++) expect(couldBeCode(generateCode())).toBe(true);
  });
});

describe('customCodeProblem', () => {
  it.each(['abc', 'a-b', 'a_b', 'Spring-Sale_2026', '123', 'x'.repeat(64), '---', 'AbC'])('accepts %j', (code) => {
    expect(customCodeProblem(code)).toBeNull();
  });

  it.each([
    ['empty', ''],
    ['too short', 'ab'],
    ['too long', 'x'.repeat(65)],
    ['a dot', 'a.b'],
    ['a slash', 'a/b'],
    ['a space', 'a b'],
    ['a percent sign', 'a%20'],
    ['non-ASCII letters', 'café'],
    ['an emoji', 'ab🙂'],
    ['a newline', 'abc\n'],
  ])('refuses %s', (_label, code) => {
    expect(customCodeProblem(code)).toEqual(expect.any(String));
  });

  it.each([
    'api',
    'API',
    'Docs',
    'health',
    'dashboard',
    'static',
    'assets',
    'login',
    'logout',
    'signup',
    'account',
    'ADMIN',
  ])('refuses the reserved name %j in any case', (code) => {
    expect(customCodeProblem(code)).toMatch(/reserved/);
  });
});

describe('RESERVED_CODES', () => {
  it('holds every first path segment the service serves, lower-case', () => {
    for (const name of [
      'api',
      'docs',
      'health',
      'dashboard',
      'openapi.json',
      'favicon.ico',
      'robots.txt',
      'static',
      'assets',
      'login',
      'logout',
      'signup',
      'account',
      'admin',
      'password-reset',
    ]) {
      expect(RESERVED_CODES.has(name)).toBe(true);
    }
    for (const name of RESERVED_CODES) expect(name).toBe(name.toLowerCase());
  });

  it('is compared case-insensitively', () => {
    expect(isReservedCode('OpenAPI.JSON')).toBe(true);
    expect(isReservedCode('apis')).toBe(false);
  });
});

describe('couldBeCode', () => {
  it.each(['abc', 'Ab3dE9x', 'x'.repeat(64), 'a_b-c'])('accepts %j', (value) => {
    expect(couldBeCode(value)).toBe(true);
  });

  it.each(['', 'ab', 'x'.repeat(65), 'a.b', '../', '%00', '\u0000abc', 'abc def', 'ábc'])('refuses %j', (value) => {
    expect(couldBeCode(value)).toBe(false);
  });
});
