import { decoyHash, hashPassword, passwordProblem, verifyPassword } from './passwords.js';

describe('passwords', () => {
  const password = 'correct horse battery';

  it('hashes with scrypt at OWASP’s parameters, stored with the hash, and a random salt', async () => {
    const first = await hashPassword(password);
    const second = await hashPassword(password);

    expect(first).toMatch(/^scrypt\$131072\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain(password);
  });

  it('verifies the right password and refuses a wrong one', async () => {
    const sut = await hashPassword(password);

    await expect(verifyPassword(password, sut)).resolves.toBe(true);
    await expect(verifyPassword('correct horse battery ', sut)).resolves.toBe(false);
    await expect(verifyPassword('', sut)).resolves.toBe(false);
  });

  it('treats the composed and decomposed forms of a character as one password (NFC)', async () => {
    const sut = await hashPassword('caf\u00e9 au lait');

    await expect(verifyPassword('cafe\u0301 au lait', sut)).resolves.toBe(true);
  });

  it('verifies with the parameters stored in the hash, so they can be raised later', async () => {
    // A hash made with cheaper parameters (as an older release might have stored).
    const { scrypt } = await import('node:crypto');
    const salt = Buffer.from('0123456789abcdef');
    const key = await new Promise<Buffer>((resolve, reject) =>
      scrypt(password, salt, 32, { N: 1024, r: 8, p: 1 }, (error, derived) =>
        error ? reject(error) : resolve(derived),
      ),
    );
    const stored = ['scrypt', 1024, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');

    await expect(verifyPassword(password, stored)).resolves.toBe(true);
  });

  it.each(['', 'not-a-hash', 'bcrypt$10$x$y', 'scrypt$131072$8$1$$'])(
    'refuses every password against a malformed stored value %j without throwing',
    async (stored) => {
      await expect(verifyPassword(password, stored)).resolves.toBe(false);
    },
  );

  it('refuses a password over 256 characters before hashing it', async () => {
    const sut = await hashPassword(password);

    await expect(verifyPassword('x'.repeat(257), sut)).resolves.toBe(false);
  });

  it('names the problem with a new password by its length', () => {
    expect(passwordProblem('1234567')).toBe('Use at least 8 characters.');
    expect(passwordProblem('12345678')).toBeNull();
    expect(passwordProblem('x'.repeat(256))).toBeNull();
    expect(passwordProblem('x'.repeat(257))).toBe('Use at most 256 characters.');
  });

  it('keeps one decoy hash that no password matches', async () => {
    const sut = await decoyHash();

    expect(await decoyHash()).toBe(sut);
    await expect(verifyPassword(password, sut)).resolves.toBe(false);
  });
});
