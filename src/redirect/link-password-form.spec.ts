import { FORM_TOKEN_LIFETIME_MS, formTokenValid, issueFormToken } from './link-password-form.js';

describe('the password form token', () => {
  const hash = 'scrypt$131072$8$1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';
  const now = Date.parse('2026-12-01T10:00:00Z');
  const sut = issueFormToken('Ab3dE9x', '198.51.100.7', hash, now);

  it('is valid for the link, the client address and the password it was issued for, for its lifetime', () => {
    expect(sut).toMatch(/^[0-9a-z]+\.[\w-]{43}$/);
    expect(formTokenValid(sut, 'Ab3dE9x', '198.51.100.7', hash, now)).toBe(true);
    expect(formTokenValid(sut, 'Ab3dE9x', '198.51.100.7', hash, now + FORM_TOKEN_LIFETIME_MS)).toBe(true);
  });

  it.each([
    ['another link', ['AB3DE9X', '198.51.100.7', hash, now]],
    ['another client address (a token fetched by an attacker’s server)', ['Ab3dE9x', '203.0.113.9', hash, now]],
    ['another password (changed since the form was shown)', ['Ab3dE9x', '198.51.100.7', `${hash}x`, now]],
    ['after its lifetime', ['Ab3dE9x', '198.51.100.7', hash, now + FORM_TOKEN_LIFETIME_MS + 1000]],
    ['issued in the future', ['Ab3dE9x', '198.51.100.7', hash, now - 5 * 60 * 1000]],
  ] as const)('is refused for %s', (_name, [code, ip, passwordHash, at]) => {
    expect(formTokenValid(sut, code, ip, passwordHash, at)).toBe(false);
  });

  it.each([
    undefined,
    '',
    42,
    ['x'],
    'nonsense',
    '.',
    `${sut}x`,
    sut.replace(/\.(.)/, (_, first: string) => `.${first === 'A' ? 'B' : 'A'}`),
    `zzzzzzzzzzzzzzzzzzzz.${sut.split('.')[1]}`,
    `-1.${sut.split('.')[1]}`,
    'x'.repeat(10_000),
  ])('refuses a malformed or tampered token %#', (token) => {
    expect(formTokenValid(token, 'Ab3dE9x', '198.51.100.7', hash, now)).toBe(false);
  });
});
