import { generate } from 'otplib';
import {
  acceptedTotpStep,
  hashRecoveryCode,
  isTotpSecret,
  looksLikeRecoveryCode,
  newRecoveryCodes,
  newTotpSecret,
  totpUri,
} from './two-factor.js';

describe('TOTP (RFC 6238: SHA-1, 6 digits, 30 s, ±1 step)', () => {
  const secret = newTotpSecret();
  const step = 59_000_000;
  const at = (s: number) => s * 30_000 + 12_000;
  const codeAt = (s: number) => generate({ secret, epoch: s * 30 + 1 });

  it('makes 160-bit base32 secrets and an otpauth URI apps read', () => {
    expect(isTotpSecret(secret)).toBe(true);
    expect(newTotpSecret()).not.toBe(secret);
    const uri = new URL(totpUri(secret, 'a@example.test', 'shortlink (sho.rt)'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('issuer')).toBe('shortlink (sho.rt)');
  });

  it('accepts the current step and one either side, and says which step the code was', async () => {
    await expect(acceptedTotpStep(secret, await codeAt(step), null, at(step))).resolves.toBe(step);
    await expect(acceptedTotpStep(secret, await codeAt(step - 1), null, at(step))).resolves.toBe(step - 1);
    await expect(acceptedTotpStep(secret, await codeAt(step + 1), null, at(step))).resolves.toBe(step + 1);
    await expect(acceptedTotpStep(secret, await codeAt(step - 2), null, at(step))).resolves.toBeNull();
    await expect(acceptedTotpStep(secret, await codeAt(step + 2), null, at(step))).resolves.toBeNull();
  });

  it('refuses a code of the last accepted step or an earlier one (replay)', async () => {
    await expect(acceptedTotpStep(secret, await codeAt(step), step, at(step))).resolves.toBeNull();
    await expect(acceptedTotpStep(secret, await codeAt(step - 1), step - 1, at(step))).resolves.toBeNull();
    await expect(acceptedTotpStep(secret, await codeAt(step + 1), step, at(step))).resolves.toBe(step + 1);
    // A stored step from the future (a clock that jumped back) accepts nothing rather than throwing.
    await expect(acceptedTotpStep(secret, await codeAt(step), step + 50, at(step))).resolves.toBeNull();
  });

  it('reads codes typed with spaces or a dash, and refuses anything else', async () => {
    const code = await codeAt(step);
    await expect(acceptedTotpStep(secret, `${code.slice(0, 3)} ${code.slice(3)}`, null, at(step))).resolves.toBe(step);
    for (const garbage of ['', '12345', '1234567', 'abcdef', '１２３４５６', '\u0000'.repeat(6), 'x'.repeat(10_000)]) {
      await expect(acceptedTotpStep(secret, garbage, null, at(step))).resolves.toBeNull();
    }
  });

  it('makes ten distinct recovery codes, hashed the same however they are typed', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) {
      expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
      expect(looksLikeRecoveryCode(code)).toBe(true);
      expect(hashRecoveryCode(` ${code.toUpperCase().replace('-', ' ')} `)).toBe(hashRecoveryCode(code));
    }
    expect(looksLikeRecoveryCode('123456')).toBe(false);
  });
});
