import { createHash } from 'node:crypto';
import { generateRawToken, hashToken, looksLikeToken, tokenPrefix } from './token-secret.js';

describe('generateRawToken', () => {
  it('is sl_ followed by 40 base62 characters', () => {
    const sut = generateRawToken();

    expect(sut).toMatch(/^sl_[0-9A-Za-z]{40}$/);
    expect(sut).toHaveLength(43);
  });

  it('is different every time', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => generateRawToken()));

    expect(tokens.size).toBe(1000);
  });
});

describe('hashToken', () => {
  it('is the hex SHA-256 of the token', () => {
    const token = 'sl_0123456789ABCDEFGHIJabcdefghij0123456789';

    const sut = hashToken(token);

    expect(sut).toBe(createHash('sha256').update(token).digest('hex'));
    expect(sut).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers a token hashed just before, and any other, with its own hash', () => {
    const [a, b] = [generateRawToken(), generateRawToken()];
    const sha256 = (raw: string) => createHash('sha256').update(raw).digest('hex');

    expect([hashToken(a), hashToken(a), hashToken(b), hashToken(a), hashToken(b)]).toEqual([a, a, b, a, b].map(sha256));
  });

  it('is stable for one token and differs between tokens', () => {
    const a = generateRawToken();
    const b = generateRawToken();

    expect(hashToken(a)).toBe(hashToken(a));
    expect(hashToken(a)).not.toBe(hashToken(b));
  });

  it('does not contain the token', () => {
    const token = generateRawToken();

    expect(hashToken(token)).not.toContain(token.slice(3));
  });

  it('matches a known SHA-256 vector', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('tokenPrefix', () => {
  it('keeps sl_ and four characters, far too few to guess the rest from', () => {
    const token = generateRawToken();

    expect(tokenPrefix(token)).toBe(token.slice(0, 7));
    expect(tokenPrefix(token)).toMatch(/^sl_[0-9A-Za-z]{4}$/);
  });
});

describe('looksLikeToken', () => {
  it('accepts generated tokens', () => {
    expect(looksLikeToken(generateRawToken())).toBe(true);
  });

  it.each([
    ['', 'empty'],
    ['sl_', 'prefix only'],
    ['sl_0123456789ABCDEFGHIJabcdefghij012345678', '39 characters'],
    ['sl_0123456789ABCDEFGHIJabcdefghij01234567890', '41 characters'],
    ['xx_0123456789ABCDEFGHIJabcdefghij0123456789', 'another prefix'],
    ['SL_0123456789ABCDEFGHIJabcdefghij0123456789', 'upper-case prefix'],
    ['sl_0123456789ABCDEFGHIJabcdefghij012345678-', 'a character outside base62'],
    [' sl_0123456789ABCDEFGHIJabcdefghij0123456789', 'a leading space'],
    ['sl_0123456789ABCDEFGHIJabcdefghij0123456789\n', 'a trailing newline'],
  ])('refuses %j (%s)', (value) => {
    expect(looksLikeToken(value)).toBe(false);
  });
});
