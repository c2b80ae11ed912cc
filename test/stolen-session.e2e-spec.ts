import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { generate } from 'otplib';
import { AccountsService } from '../src/accounts/accounts.service.js';
import { newTotpSecret } from '../src/accounts/two-factor.js';
import { SessionsService } from '../src/auth/sessions/sessions.service.js';
import { PrismaService } from '../src/database/prisma.service.js';
import { newClient } from './support/factories.js';
import { Browser } from './support/browser/form-browser.js';
import { committedMigrations } from './support/database/migrations.js';
import { PROJECT_ROOT } from './support/processes/run-source.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { createTestDatabase, testDatabaseKind } from './support/database/test-database.js';
import { codeAt, newEmail, PASSWORD, signUpWithForms, turnOnTwoFactor } from './support/people.js';

/**
 * The holes a second attack found (issue 54), tried as the attacker did: someone who holds only
 * the owner's session cookie (copied from a shared computer, a synced browser profile, malware)
 * and not the password. Every spec here failed before sudo mode existed. The sessions are aged
 * in the database: a session that signed in more than 5 minutes ago is no longer "fresh".
 */
const NEW_PASSWORD = 'vortex lantern 93 quilt';
const SESSION = '__Host-shortlink_session';
const SIX_MINUTES_MS = 6 * 60 * 1000;

const codeNow = (secret: string) => generate({ secret });

describe('A stolen session cookie', () => {
  let testApp: TestApp;
  let prisma: PrismaService;

  beforeAll(async () => {
    testApp = await startTestApp({ TRUST_PROXY: 'true', RATE_LIMIT_ANONYMOUS: '1000000' });
    prisma = testApp.app.get(PrismaService);
  });
  afterAll(() => testApp.close());

  async function signUp(email = newEmail()): Promise<{ email: string; owner: Browser; accountId: string }> {
    const owner = await signUpWithForms(testApp, email);
    const account = await testApp.app.get(AccountsService).findByEmail(email);
    return { email, owner, accountId: account!.id };
  }

  /** Every session of the account signed in (or last proved the password) six minutes ago. */
  async function ageSessions(accountId: string): Promise<void> {
    const then = new Date(Date.now() - SIX_MINUTES_MS);
    await prisma.session.updateMany({ where: { accountId }, data: { createdAt: then, authenticatedAt: then } });
  }

  /** The attacker: the owner's session cookie, nothing else, from an address of their own. */
  function thief(owner: Browser): Browser {
    const browser = new Browser(testApp, newClient());
    browser.cookies.set(SESSION, owner.cookies.get(SESSION)!);
    return browser;
  }

  async function totpOn(accountId: string): Promise<boolean> {
    return (await testApp.app.get(AccountsService).twoFactorStatus(accountId)).enabled;
  }

  async function addPasskeyRow(accountId: string, name = 'Owner laptop'): Promise<string> {
    const id = randomBytes(16).toString('base64url');
    await prisma.passkey.create({ data: { id, accountId, name, publicKey: 'AAAA', counter: 0 } });
    return id;
  }

  it('cannot turn on two-factor sign-in with a secret of its own (no recovery codes for it)', async () => {
    const { owner, accountId } = await signUp();
    await ageSessions(accountId);
    const attacker = thief(owner);
    const secret = newTotpSecret();

    const refused = await attacker.post(
      '/account/two-factor',
      { totp_secret: secret, code: await codeNow(secret) },
      undefined,
      '/account',
    );
    expect(refused.status).toBe(403);
    const html = await refused.text();
    expect(html).not.toContain('aria-label="Recovery codes"');
    expect(html).toContain('Confirm it’s you');
    expect(await totpOn(accountId)).toBe(false);

    // The page asks to confirm first, and shows no secret to set up.
    const page = await (await attacker.get('/account')).text();
    expect(page).toContain('Confirm it’s you');
    expect(page).not.toContain('aria-label="Secret key"');
  });

  it('cannot start adding a passkey', async () => {
    const { owner, accountId } = await signUp();
    await ageSessions(accountId);
    const attacker = thief(owner);
    const csrf = await attacker.csrfFrom('/account');

    const options = await attacker.post('/account/passkeys/options', {}, csrf);
    expect(options.status).toBe(403);
    expect(((await options.json()) as { message: string }).message).toMatch(/Confirm it’s you/);
    expect(await prisma.signInChallenge.count({ where: { accountId } })).toBe(0);
    // Nor finish one: there is no step to finish.
    const added = await attacker.post('/account/passkeys', { name: 'Mine now', response: '{}' }, csrf);
    expect(added.status).toBe(403);
    expect(await prisma.passkey.count({ where: { accountId } })).toBe(0);
  });

  it('cannot remove the owner’s passkey', async () => {
    const { owner, accountId } = await signUp();
    const passkey = await addPasskeyRow(accountId);
    await ageSessions(accountId);
    const attacker = thief(owner);

    const removed = await attacker.post(
      `/account/passkeys/${encodeURIComponent(passkey)}/delete`,
      {},
      undefined,
      '/account',
    );
    expect(removed.status).toBe(403);
    expect(await prisma.passkey.count({ where: { id: passkey } })).toBe(1);
  });

  it('cannot turn two-factor sign-in off, nor change the password, without the password', async () => {
    const { owner, accountId, email } = await signUp();
    const { secret, step, answer: on } = await turnOnTwoFactor(owner);
    expect(on.status).toBe(200);
    await ageSessions(accountId);
    const attacker = thief(owner);

    // Even with a code (read over the owner's shoulder): the password is missing.
    const off = await attacker.post(
      '/account/two-factor/delete',
      { password: '', code: await codeAt(secret, step + 1) },
      undefined,
      '/account',
    );
    expect(off.status).toBe(400);
    expect(await totpOn(accountId)).toBe(true);

    const changed = await attacker.post(
      '/account/password',
      { current_password: '', new_password: NEW_PASSWORD },
      undefined,
      '/account',
    );
    expect(changed.status).toBe(400);
    const signIn = await new Browser(testApp).post('/login', { email, password: PASSWORD });
    expect(signIn.headers.get('location')).toBe('/login/code');
  });

  it('cannot create an API token (a way in that would outlive every session)', async () => {
    const { owner, accountId } = await signUp();
    await ageSessions(accountId);
    const attacker = thief(owner);

    const refused = await attacker.post(
      '/dashboard/tokens',
      { name: 'backdoor', scopes: ['links:read', 'links:write'] },
      undefined,
      '/dashboard/tokens',
    );
    expect(refused.status).toBe(403);
    expect(await refused.text()).not.toContain('aria-label="New token"');
    expect(await prisma.apiToken.count({ where: { accountId } })).toBe(0);
    expect(await (await attacker.get('/dashboard/tokens')).text()).toContain('Confirm it’s you');
  });

  it('has no way to change the email at all (were one added, it must ask as these do)', async () => {
    const { owner, accountId } = await signUp();
    await ageSessions(accountId);
    const attacker = thief(owner);
    const csrf = await attacker.csrfFrom('/account');
    for (const path of ['/account/email', '/account/email/change']) {
      expect((await attacker.post(path, { email: newEmail() }, csrf)).status).toBe(404);
    }
  });

  it('with the password (confirmed on the page), the same session can do each of them for 5 minutes', async () => {
    const { owner, accountId, email } = await signUp();
    const passkey = await addPasskeyRow(accountId);
    await ageSessions(accountId);

    const wrong = await owner.post('/account/confirm', { password: 'not my password' }, undefined, '/account');
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('That is not your password.');

    const confirmed = await owner.post('/account/confirm', { password: PASSWORD }, undefined, '/account');
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe('/account?confirmed=1');
    const page = await (await owner.get('/account?confirmed=1')).text();
    expect(page).not.toContain('id="confirm_password"');
    const secret = /aria-label="Secret key">([A-Z2-7]+)</.exec(page)![1];

    const on = await owner.post(
      '/account/two-factor',
      { totp_secret: secret, code: await codeNow(secret) },
      undefined,
      '/account',
    );
    expect(on.status).toBe(200);
    expect(await on.text()).toContain('aria-label="Recovery codes"');
    const csrf = await owner.csrfFrom('/account');
    expect((await owner.post('/account/passkeys/options', {}, csrf)).status).toBe(200);
    expect((await owner.post(`/account/passkeys/${encodeURIComponent(passkey)}/delete`, {}, csrf)).status).toBe(303);
    expect(await prisma.passkey.count({ where: { id: passkey } })).toBe(0);
    const token = await owner.post(
      '/dashboard/tokens',
      { name: 'mine', scopes: ['links:read'] },
      undefined,
      '/dashboard/tokens',
    );
    expect(token.status).toBe(201);

    // Five minutes on, it asks again.
    await ageSessions(accountId);
    const late = await owner.post(
      '/dashboard/tokens',
      { name: 'later', scopes: ['links:read'] },
      undefined,
      '/dashboard/tokens',
    );
    expect(late.status).toBe(403);

    // Password change: the current password is the proof, whenever the session signed in.
    const changed = await owner.post(
      '/account/password',
      { current_password: PASSWORD, new_password: NEW_PASSWORD },
      undefined,
      '/account',
    );
    expect(changed.status).toBe(303);
    expect((await new Browser(testApp).post('/login', { email, password: NEW_PASSWORD })).status).toBe(303);
  });

  it('a fresh sign-in needs no confirmation', async () => {
    const { owner, accountId } = await signUp();
    const page = await (await owner.get('/account')).text();
    expect(page).not.toContain('Confirm it’s you');
    const csrf = await owner.csrfFrom('/account');
    expect((await owner.post('/account/passkeys/options', {}, csrf)).status).toBe(200);
    const secret = /aria-label="Secret key">([A-Z2-7]+)</.exec(page)![1];
    const on = await owner.post('/account/two-factor', { totp_secret: secret, code: await codeNow(secret) }, csrf);
    expect(on.status).toBe(200);
    expect(await totpOn(accountId)).toBe(true);
  });

  it('confirming two-factor accounts needs the code too, and guesses count like sign-ins', async () => {
    const { owner, accountId } = await signUp();
    const { secret, step } = await turnOnTwoFactor(owner);
    await ageSessions(accountId);
    const attacker = thief(owner);
    const csrf = await attacker.csrfFrom('/account');
    expect(await (await attacker.get('/account')).text()).toContain('id="confirm_code"');

    // The password alone (phished) is not enough when the account has a second factor.
    const noCode = await attacker.post('/account/confirm', { password: PASSWORD, code: '' }, csrf);
    expect(noCode.status).toBe(400);
    expect((await attacker.post('/account/passkeys/options', {}, csrf)).status).toBe(403);

    for (let guess = 0; guess < 9; guess++) {
      attacker.moveTo(newClient());
      expect(
        (await attacker.post('/account/confirm', { password: `guess ${guess}`, code: '000000' }, csrf)).status,
      ).toBe(400);
    }
    attacker.moveTo(newClient());
    const limited = await attacker.post(
      '/account/confirm',
      { password: PASSWORD, code: await codeAt(secret, step + 1) },
      csrf,
    );
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);

    // The owner's own browser (its device cookie) still confirms, with password and code.
    const ok = await owner.post(
      '/account/confirm',
      { password: PASSWORD, code: await codeAt(secret, step + 1) },
      undefined,
      '/account',
    );
    expect(ok.status).toBe(303);
  });

  it('an account without a password confirms by signing in again', async () => {
    const email = newEmail();
    const account = await testApp.app.get(AccountsService).create(email);
    const sessionId = await testApp.app.get(SessionsService).start(account.id);
    const owner = new Browser(testApp);
    owner.cookies.set(SESSION, sessionId);
    await addPasskeyRow(account.id);
    await ageSessions(account.id);

    const page = await (await owner.get('/account')).text();
    expect(page).toContain('Sign in again');
    expect(page).not.toContain('id="confirm_password"');
    const csrf = await owner.csrfFrom('/account');
    expect((await owner.post('/account/confirm', { password: '' }, csrf)).status).toBe(400);
    expect((await owner.post('/account/passkeys/options', {}, csrf)).status).toBe(403);

    const again = await owner.post('/account/reauthenticate', {}, csrf);
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe('/login?next=%2Faccount');
    // This session is over; signing in (a passkey, the provider) starts a fresh one.
    expect((await owner.get('/account')).status).toBe(303);
    expect(await prisma.session.count({ where: { accountId: account.id } })).toBe(0);
  });

  it('lists the ways to sign in, each with when it was added', async () => {
    const { owner, accountId } = await signUp();
    await addPasskeyRow(accountId, 'Work key');
    const page = await (await owner.get('/account')).text();
    const today = new Date().toISOString().slice(0, 10);
    const section = /<section[^>]*aria-labelledby="sign-in-methods-heading"[\s\S]*?<\/section>/.exec(page)?.[0] ?? '';
    expect(section).toMatch(new RegExp(`Password</strong>[^<]*<span class="muted">set ${today}`));
    expect(section).toContain('Two-factor authentication</strong> <span class="muted">off');
    expect(section).toMatch(new RegExp(`Work key</strong>[^<]*<span class="muted">passkey, added ${today}`));
  });
});

describe('After a password change or signing out everywhere', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp({ TRUST_PROXY: 'true', RATE_LIMIT_ANONYMOUS: '1000000' });
  });
  afterAll(() => testApp.close());

  /** An owner with two-factor on, and an attacker who has the old password and is at the code step. */
  async function halfwayIn() {
    const email = newEmail();
    const owner = await signUpWithForms(testApp, email);
    const { secret, step } = await turnOnTwoFactor(owner);
    const attacker = new Browser(testApp);
    const password = await attacker.post('/login', { email, password: PASSWORD });
    expect(password.headers.get('location')).toBe('/login/code');
    return { email, owner, attacker, secret, step };
  }

  it('a sign-in begun with the old password cannot be finished with a code', async () => {
    const { owner, attacker, secret, step } = await halfwayIn();
    const csrf = await attacker.csrfFrom('/login/code');
    const changed = await owner.post(
      '/account/password',
      { current_password: PASSWORD, new_password: NEW_PASSWORD },
      undefined,
      '/account',
    );
    expect(changed.status).toBe(303);

    const code = await attacker.post('/login/code', { code: await codeAt(secret, step + 1) }, csrf);
    expect(code.status).toBe(303);
    expect(code.headers.get('location')).toBe('/login');
    expect([...attacker.cookies.keys()]).not.toContain(SESSION);
  });

  it('signing out everywhere ends sign-ins half done as well as sessions', async () => {
    const { owner, attacker, secret, step } = await halfwayIn();
    const csrf = await attacker.csrfFrom('/login/code');
    const out = await owner.post('/account/sessions/delete', {}, undefined, '/account');
    expect(out.status).toBe(303);

    const code = await attacker.post('/login/code', { code: await codeAt(secret, step + 1) }, csrf);
    expect(code.headers.get('location')).toBe('/login');
    expect([...attacker.cookies.keys()]).not.toContain(SESSION);
  });
});

describe('The sign_in_times migration', () => {
  it('keeps every account and session; a session made before it last proved a factor when it was made', async () => {
    const kind = testDatabaseKind();
    const migrations = committedMigrations(kind);
    const at = migrations.findIndex((name) => name.endsWith('_sign_in_times'));
    expect(at).toBeGreaterThan(0);
    const sql = (name: string) =>
      readFileSync(join(PROJECT_ROOT, 'prisma', kind, 'migrations', name, 'migration.sql'), 'utf8');
    const database = await createTestDatabase();
    const run = await connect(database.url);
    try {
      for (const name of migrations.slice(0, at)) await run(sql(name));
      await run(`INSERT INTO accounts (id, email, password_hash, created_at) VALUES
        ('a1', 'one@example.test', 'scrypt$x', '2026-11-01T10:00:00.000Z'),
        ('a2', 'two@example.test', NULL, '2026-11-02T10:00:00.000Z')`);
      await run(`INSERT INTO sessions (id_hash, account_id, created_at, last_seen_at) VALUES
        ('s1', 'a1', '2026-11-20T08:00:00.000Z', '2026-11-28T08:00:00.000Z'),
        ('s2', 'a2', '2026-11-21T08:00:00.000Z', '2026-11-21T09:00:00.000Z')`);

      await run(sql(migrations[at]));

      const accounts = await run('SELECT id, email, password_hash, password_set_at FROM accounts ORDER BY id');
      expect(accounts).toEqual([
        { id: 'a1', email: 'one@example.test', password_hash: 'scrypt$x', password_set_at: null },
        { id: 'a2', email: 'two@example.test', password_hash: null, password_set_at: null },
      ]);
      const sessions = await run(
        'SELECT id_hash, account_id, created_at = authenticated_at AS same FROM sessions ORDER BY id_hash',
      );
      expect(sessions.map((row) => ({ ...row, same: Boolean(row.same) }))).toEqual([
        { id_hash: 's1', account_id: 'a1', same: true },
        { id_hash: 's2', account_id: 'a2', same: true },
      ]);
    } finally {
      await run.close();
      await database.drop();
    }
  });
});

/** Runs SQL (several statements, or one query whose rows it returns) on a test database. */
async function connect(url: string) {
  if (url.startsWith('file:')) {
    const db = new SqliteDatabase(url.slice('file:'.length));
    const run = (text: string): Promise<Record<string, unknown>[]> =>
      Promise.resolve(
        /^\s*SELECT/i.test(text) ? (db.prepare(text).all() as Record<string, unknown>[]) : (db.exec(text), []),
      );
    return Object.assign(run, { close: () => Promise.resolve(db.close()) });
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const run = async (text: string): Promise<Record<string, unknown>[]> => {
    const result = await client.query(text);
    return Array.isArray(result) ? [] : (result.rows as Record<string, unknown>[]);
  };
  return Object.assign(run, { close: () => client.end() });
}
