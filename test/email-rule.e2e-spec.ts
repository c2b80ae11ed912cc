import { randomBytes } from 'node:crypto';
import { AccountsService } from '../src/accounts/accounts.service.js';
import { PrismaService } from '../src/database/prisma.service.js';
import { shortlinkInProcess } from './support/processes/cli-in-process.js';
import { Browser } from './support/browser/form-browser.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { PASSWORD } from './support/people.js';
import { testDatabaseKind } from './support/database/test-database.js';

/**
 * One email rule everywhere an address comes in (issue 54): trimmed, NFC, no control or
 * invisible characters, at most 254 characters, compared case-insensitively. Each attack as it
 * was tried: before the rule, a NUL or a zero-width space inside an address made a second,
 * look-alike account of a registered one (or, on PostgreSQL, a 500). The SSO half is in
 * test/single-sign-on.e2e-spec.ts.
 */
const local = () => `owner-${randomBytes(4).toString('hex')}`;

describe('The email rule', () => {
  let testApp: TestApp;
  let prisma: PrismaService;

  beforeAll(async () => {
    testApp = await startTestApp({ TRUST_PROXY: 'true', RATE_LIMIT_ANONYMOUS: '1000000' });
    prisma = testApp.app.get(PrismaService);
  });
  afterAll(() => testApp.close());

  /** Accounts whose address, without invisible characters, is `email`'s: the look-alikes. */
  async function lookAlikes(email: string): Promise<number> {
    const rows = await prisma.account.findMany({ select: { email: true } });
    const visible = (text: string) => text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '').normalize('NFC');
    return rows.filter((row) => visible(row.email) === email).length;
  }

  it.each([
    ['a NUL', (email: string) => email.replace('@', '\u0000@')],
    ['a zero-width space', (email: string) => email.replace('-', '-\u200b')],
    ['a zero-width joiner at the start', (email: string) => `\u200d${email}`],
    ['a right-to-left override', (email: string) => email.replace('@', '\u202e@')],
    ['a line separator', (email: string) => email.replace('@', '\u2028@')],
  ])('refuses a sign-up whose address hides %s: no look-alike of a registered account', async (_what, hide) => {
    const email = `${local()}@example.test`;
    expect((await new Browser(testApp).post('/signup', { email, password: PASSWORD })).status).toBe(303);

    const attacker = new Browser(testApp);
    const refused = await attacker.post('/signup', { email: hide(email), password: PASSWORD });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('invisible or control character');
    expect([...attacker.cookies.keys()]).not.toContain('__Host-shortlink_session');
    expect(await lookAlikes(email)).toBe(1);
  });

  it('takes the same address in another Unicode form or letter case as the registered one', async () => {
    const name = local();
    const composed = `${name}-jos\u00e9@example.test`;
    expect((await new Browser(testApp).post('/signup', { email: composed, password: PASSWORD })).status).toBe(303);

    for (const other of [`${name}-jose\u0301@example.test`, `  ${name.toUpperCase()}-JOS\u00c9@EXAMPLE.TEST `]) {
      const again = await new Browser(testApp).post('/signup', { email: other, password: PASSWORD });
      expect(again.status).toBe(409);
    }
    // And signs in to it, typed either way.
    const signIn = await new Browser(testApp).post('/login', {
      email: `${name}-jose\u0301@example.test`,
      password: PASSWORD,
    });
    expect(signIn.status).toBe(303);
  });

  it('refuses an address over 254 characters', async () => {
    const email = `${'a'.repeat(64)}@${'b'.repeat(180)}.example.test`;
    expect(email.length).toBeGreaterThan(254);
    const refused = await new Browser(testApp).post('/signup', { email, password: PASSWORD });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('at most 254 characters');
  });

  it('answers a sign-in with a NUL or an invisible character in the email as a wrong password, never a 500', async () => {
    for (const email of ['someone\u0000@example.test', 'some\u200bone@example.test', '\u0000']) {
      const answer = await new Browser(testApp).post('/login', { email, password: PASSWORD });
      expect(answer.status).toBe(401);
    }
  });

  it('holds for shortlink account create', async () => {
    const env = { DATABASE_URL: testApp.database.url };
    for (const bad of [
      `${local()}\u200b@example.test`,
      `${local()}\u0000@example.test`,
      `${'a'.repeat(300)}@example.test`,
    ]) {
      const result = await shortlinkInProcess(['account', 'create', bad], env);
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      // One line, the invisible character shown as an escape rather than printed.
      expect(result.stderr).toMatch(/^shortlink: Not an e-mail address: [^\n]*\n$/);
      expect(result.stderr).not.toMatch(/[\p{Cc}\p{Cf}](?<!\n)/u);
    }
    const made = await shortlinkInProcess(['account', 'create', ` ${local().toUpperCase()}@Example.TEST `], env);
    expect(made.status).toBe(0);
    expect((JSON.parse(made.stdout) as { email: string }).email).toMatch(/^owner-[0-9a-f]{8}@example\.test$/);
  });

  it('holds for the report form’s optional email', async () => {
    const refused = await new Browser(testApp).post('/report', {
      short_url: 'nothing',
      reason: 'spam',
      details: '',
      email: 'reporter\u200b@example.test',
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('invisible or control character');
  });

  it('typing the address to delete the account follows it too (another Unicode form, any case)', async () => {
    const name = local();
    const owner = new Browser(testApp);
    expect((await owner.post('/signup', { email: `${name}-jos\u00e9@example.test`, password: PASSWORD })).status).toBe(
      303,
    );
    const deleted = await owner.post(
      '/account/delete',
      { confirm_email: `${name.toUpperCase()}-JOSE\u0301@example.test` },
      undefined,
      '/account',
    );
    expect(deleted.status).toBe(303);
    expect(await testApp.app.get(AccountsService).findByEmail(`${name}-jos\u00e9@example.test`)).toBeNull();
  });
});

describe('shortlink account check-emails', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('lists the accounts whose stored address breaks the rule, by id and why, and changes nothing', async () => {
    const env = { DATABASE_URL: testApp.database.url };
    const clean = await shortlinkInProcess(['account', 'check-emails'], env);
    expect(clean.status).toBe(0);
    expect(clean.stdout).toBe('Every account’s email follows the rule.\n');

    // Rows from before the rule, written as they could have been.
    const prisma = testApp.app.get(PrismaService);
    const legacy = [
      { email: 'zero\u200bwidth@example.test', why: 'an invisible or control character (U+200B)' },
      { email: 'jose\u0301@example.test', why: 'not in Unicode NFC form' },
      { email: 'Upper@Example.test', why: 'not in lower case' },
      { email: ' spaced@example.test', why: 'spaces around it' },
      { email: `${'a'.repeat(300)}@example.test`, why: 'longer than 254 characters' },
      { email: 'not-an-address', why: 'not shaped like name@example.com' },
      ...(testDatabaseKind() === 'sqlite'
        ? [{ email: 'nul\u0000@example.test', why: 'an invisible or control character (U+0000)' }]
        : []),
    ];
    const ids: string[] = [];
    for (const { email } of legacy) ids.push((await prisma.account.create({ data: { email } })).id);
    await prisma.account.create({ data: { email: 'fine@example.test' } });

    const report = await shortlinkInProcess(['account', 'check-emails'], env);
    expect(report.status).toBe(1);
    const lines = report.stdout.trim().split('\n');
    expect(lines[0]).toBe(`${legacy.length} accounts have an email that breaks the rule (nothing was changed):`);
    for (const [index, { why }] of legacy.entries()) {
      expect(lines).toContainEqual(
        expect.stringMatching(new RegExp(`^${ids[index]}\\t.*\\t${why.replace(/[()+]/g, '\\$&')}$`)),
      );
    }
    expect(report.stdout).not.toContain('\u0000');
    expect(report.stdout).not.toContain('\u200b');
    // Nothing was changed.
    const after = await prisma.account.findMany({ where: { id: { in: ids } }, select: { email: true } });
    expect(after.map((row) => row.email).sort()).toEqual(legacy.map((row) => row.email).sort());
  });
});
