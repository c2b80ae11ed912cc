import { checkEmail, emailLookupKey, emailRuleBreaks, normalizeEmail, printableEmail } from './email-address.js';

describe('the email rule', () => {
  describe('checkEmail', () => {
    const sut = checkEmail;

    it('takes an address trimmed, in NFC and lower case', () => {
      expect(sut('  Owner@Example.TEST\t')).toEqual({ ok: true, email: 'owner@example.test' });
      // "é" typed as e + combining acute, and as one character: the same address.
      expect(sut('jose\u0301@example.test')).toEqual({ ok: true, email: 'jos\u00e9@example.test' });
      expect(sut('JOSE\u0301@EXAMPLE.TEST')).toEqual({ ok: true, email: 'jos\u00e9@example.test' });
      expect(sut('名前@例え.テスト')).toEqual({ ok: true, email: '名前@例え.テスト' });
    });

    it.each([
      ['NUL', 'owner\u0000@example.test'],
      ['a tab inside', 'own\ter@example.test'],
      ['DEL', 'owner\u007f@example.test'],
      ['a C1 control', 'owner\u0085@example.test'],
      ['a zero-width space', 'own\u200ber@example.test'],
      ['a zero-width space at the start (trim keeps it)', '\u200bowner@example.test'],
      ['a zero-width joiner', 'own\u200der@example.test'],
      ['a right-to-left override', 'owner\u202e@example.test'],
      ['a byte-order mark inside', 'own\ufeffer@example.test'],
      ['a soft hyphen', 'own\u00ader@example.test'],
      ['a line separator', 'owner\u2028@example.test'],
      ['a paragraph separator', 'owner\u2029@example.test'],
    ])('refuses %s', (_what, input) => {
      expect(sut(input)).toEqual({
        ok: false,
        reason: 'invisible',
        problem: expect.stringContaining('invisible or control character') as string,
      });
    });

    it('refuses more than 254 characters, counted as characters, not UTF-16 units', () => {
      const at254 = `${'a'.repeat(64)}@${'b'.repeat(176)}.example.test`;
      expect(at254).toHaveLength(254);
      expect(sut(at254).ok).toBe(true);
      expect(sut(`a${at254}`)).toEqual({
        ok: false,
        reason: 'too-long',
        problem: 'An email address has at most 254 characters.',
      });
      // 200 characters outside the BMP: 400 UTF-16 units, but 200 characters.
      const astral = `${'😀'.repeat(200)}@example.test`;
      expect(sut(astral).ok).toBe(true);
    });

    it.each(['', 'not-an-email', 'a@b', 'two words@example.test', '@example.test', 'a@@example.test'])(
      'refuses %j, which is not shaped like an address',
      (input) => {
        expect(sut(input)).toEqual({
          ok: false,
          reason: 'shape',
          problem: 'Enter an email address like name@example.com.',
        });
      },
    );
  });

  it('normalizeEmail is what lookups and comparisons use', () => {
    expect(normalizeEmail(' Jose\u0301@Example.test ')).toBe('jos\u00e9@example.test');
    expect(normalizeEmail('\u0130@example.test')).toBe('\u0130'.toLowerCase().normalize('NFC') + '@example.test');
  });

  it('emailLookupKey finds addresses made before the rule, but never asks the database about a NUL', () => {
    expect(emailLookupKey('Zero\u200bWidth@example.test')).toBe('zero\u200bwidth@example.test');
    expect(emailLookupKey('owner\u0000@example.test')).toBeNull();
  });

  it('emailRuleBreaks says how a stored address breaks the rule, and nothing for one that follows it', () => {
    expect(emailRuleBreaks('owner@example.test')).toEqual([]);
    expect(emailRuleBreaks('zero\u200bwidth\u200b@example.test')).toEqual([
      'an invisible or control character (U+200B)',
    ]);
    expect(emailRuleBreaks(' Jose\u0301@Example.test')).toEqual([
      'spaces around it',
      'not in Unicode NFC form',
      'not in lower case',
    ]);
    expect(emailRuleBreaks(`${'a'.repeat(250)}@example.test`)).toEqual(['longer than 254 characters']);
    expect(emailRuleBreaks('nobody')).toEqual(['not shaped like name@example.com']);
  });

  it('printableEmail shows invisible characters and cuts long input short', () => {
    expect(printableEmail('own\u200ber\u0000@example.test')).toBe('own<U+200B>er<U+0000>@example.test');
    expect(printableEmail('a'.repeat(300))).toBe(`${'a'.repeat(80)}…`);
  });
});
