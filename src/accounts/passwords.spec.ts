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

  it('names the problem with a new password by its length', async () => {
    await expect(passwordProblem('Zq8#')).resolves.toBe('Use at least 8 characters.');
    await expect(passwordProblem('x'.repeat(257))).resolves.toBe('Use at most 256 characters.');
    await expect(passwordProblem('vortex lantern 93 quilt')).resolves.toBeNull();
  });

  // NIST SP 800-63B: new passwords are checked against lists of common and breached passwords
  // and against what the service knows of the person, not against composition rules.
  it.each([
    ['the most common password', 'password', /one of the most used passwords/],
    ['eight spaces', '        ', /Repeated characters/],
    ['a keyboard row', 'qwertyuiop', /most used|row of keys/],
    ['a common password with a digit and a symbol', 'Password123!', /close to a commonly used|commonly used/],
    ['a breached favourite', 'iloveyou2', /commonly used|most used/],
    ['a repeated word', 'hunter2hunter2', /Repeated groups/],
  ])('refuses %s', async (_, password, why) => {
    const problem = await passwordProblem(password, 'someone@example.test');

    expect(problem).toMatch(why);
    expect(problem).toMatch(/Choose a longer password/);
  });

  it.each([
    ['the email itself', 'maria.lopez@example.test'],
    ['the email in another case', 'Maria.Lopez@Example.TEST'],
    ['the email with more around it', 'my maria.lopez@example.test!'],
    ['the part before the @', 'maria.lopez2026'],
  ])('refuses %s', async (_, password) => {
    await expect(passwordProblem(password, 'maria.lopez@example.test')).resolves.toBe(
      'Do not use your email address in your password.',
    );
  });

  it('accepts a long passphrase of unrelated words and a long random string', async () => {
    await expect(passwordProblem('correct horse battery', 'a@example.test')).resolves.toBeNull();
    await expect(passwordProblem('k8#pQz2!mW4r', 'a@example.test')).resolves.toBeNull();
  });

  it('keeps one decoy hash that no password matches', async () => {
    const sut = await decoyHash();

    expect(await decoyHash()).toBe(sut);
    await expect(verifyPassword(password, sut)).resolves.toBe(false);
  });
});
