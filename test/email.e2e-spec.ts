// Email (issue 57) against a real SMTP server on 127.0.0.1 (test/support/processes/mail-sink.ts): password
// reset (the link works once, expires, ends every session, says nothing about which addresses
// exist), verified sign-up (SIGNUP=verify), the owners' and admins' notices, and a mail server
// that is down, answers 4xx or 5xx.
import { AccountsService } from '../src/accounts/accounts.service.js';
import { EmailTokensRepository } from '../src/auth/email-links/email-tokens.repository.js';
import { TokensService } from '../src/auth/tokens.service.js';
import { PrismaService } from '../src/database/prisma.service.js';
import { MailNotices, REPORTS_DIGEST_INTERVAL_MS } from '../src/mail/notices/mail-notices.js';
import { ReportsService } from '../src/reports/reports.service.js';
import { eventually, until } from './support/eventually.js';
import { createAccountWithToken, createAdminWithToken, newClient } from './support/factories.js';
import { Browser } from './support/browser/form-browser.js';
import { MailSink } from './support/processes/mail-sink.js';
import { startTestApp, TEST_SHORT_BASE_URL, type TestApp } from './support/test-app.js';
import { newEmail, PASSWORD, signUpWithForms, turnOnTwoFactor } from './support/people.js';
import { shortlinkInProcess } from './support/processes/cli-in-process.js';

const NEW_PASSWORD = 'purple elephant umbrella';
const ENV = { TRUST_PROXY: 'true', RATE_LIMIT_ANONYMOUS: '1000000', RATE_LIMIT_TOKEN: '1000000' };

let sink: MailSink;
let testApp: TestApp;

beforeAll(async () => {
  sink = await MailSink.start();
  testApp = await startTestApp({ ...ENV, SMTP_URL: sink.url, MAIL_RETRY_SCHEDULE: '1,1,1' });
}, 60_000);
afterAll(async () => {
  await testApp?.close();
  await sink?.stop();
});

/** An account with PASSWORD, signed in in its own browser. */
async function signedUp(app = testApp): Promise<{ email: string; browser: Browser }> {
  const email = newEmail();
  return { email, browser: await signUpWithForms(app, email) };
}

async function askForReset(email: string, browser = new Browser(testApp)): Promise<Response> {
  return browser.post('/password-reset', { email });
}

/** The page's main text, without the markup: what a person reads. */
async function pageText(response: Response): Promise<string> {
  const html = await response.text();
  const main = /<main[^>]*>([\s\S]*)<\/main>/.exec(html)?.[1] ?? html;
  return main
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const outbox = () => testApp.app.get(PrismaService).mailMessage;

describe('password reset', () => {
  it('sends a link that sets a new password once, ends every session, and then signs in', async () => {
    const { email, browser: signedIn } = await signedUp();
    const answer = await askForReset(email);
    expect(answer.status).toBe(200);
    expect(await pageText(answer)).toContain(`If an account uses ${email}`);

    const [mail] = await sink.mailsTo(email);
    expect(mail.subject).toBe('Reset your shortlink password');
    expect(mail.from).toContain(`no-reply@sl.test`);
    const link = MailSink.linkIn(mail, `${TEST_SHORT_BASE_URL}/password-reset/`);
    expect(mail.html).toContain(`href="${link}"`);
    const path = link.slice(TEST_SHORT_BASE_URL.length);

    const visitor = new Browser(testApp);
    const form = await visitor.get(path);
    expect(form.status).toBe(200);
    expect(await pageText(form)).toContain('Choose a new password');

    // The sign-up's rules hold: a weak password is refused and the link still works.
    const weak = await visitor.post(path, { password: 'short' });
    expect(weak.status).toBe(400);
    expect((await visitor.get(path)).status).toBe(200);

    const done = await visitor.post(path, { password: NEW_PASSWORD });
    expect(done.status).toBe(200);
    expect(await pageText(done)).toContain('Your new password is set');

    // Every session ended: the browser signed in before is sent to sign in.
    expect((await signedIn.get('/dashboard')).status).toBe(303);
    // Used once: the link answers 410 now, for showing and for posting.
    expect((await visitor.get(path)).status).toBe(410);
    expect(
      (await visitor.post(path, { password: 'another fine passphrase' }, undefined, '/password-reset')).status,
    ).toBe(410);

    const old = await new Browser(testApp).post('/login', { email, password: PASSWORD }, undefined, '/login');
    expect(old.status).toBe(401);
    const signIn = await new Browser(testApp).post('/login', { email, password: NEW_PASSWORD }, undefined, '/login');
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/dashboard');

    // The owner is told the password changed, in case the reset was not theirs.
    const [, notice] = await sink.mailsTo(email, 2);
    expect(notice.subject).toBe('Your shortlink sign-in changed: a new password was set');
  });

  it('answers an unknown address exactly as a known one, and sends nothing', async () => {
    const { email: known } = await signedUp();
    const unknown = newEmail();
    const knownText = (await pageText(await askForReset(known))).replace(known, 'ADDRESS');
    const unknownText = (await pageText(await askForReset(unknown))).replace(unknown, 'ADDRESS');
    expect(unknownText).toBe(knownText);
    await sink.mailsTo(known);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(sink.received.filter((mail) => mail.to === unknown)).toEqual([]);
    expect(await outbox().count({ where: { recipient: unknown } })).toBe(0);
  });

  it('takes as long for an unknown address as for a known one (no side is consistently slower)', async () => {
    const PAIRS = 24;
    const known: string[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const email = newEmail();
      await testApp.app.get(AccountsService).create(email);
      known.push(email);
    }
    const time = async (email: string): Promise<number> => {
      const browser = new Browser(testApp);
      const csrf = await browser.csrfFrom('/password-reset');
      // The known address's work after the answer (the token, the email, sending it) is over
      // before the next request is timed: what is measured is the answer alone, as a prober sees it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = process.hrtime.bigint();
      const answer = await browser.post('/password-reset', { email }, csrf);
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
      expect(answer.status).toBe(200);
      return elapsed;
    };
    // Pairs in alternating order, so that the machine's load and any order effect fall on both
    // alike. A prober's signal would be one side slower pair after pair: the sign test below.
    // With no difference, each pair goes either way with odds 1/2, and 4 or fewer of 24 (or 20
    // or more) happens about once in 1,300 runs; a real difference of a millisecond or two over
    // this noise shows as 20 or more.
    let knownSlower = 0;
    for (const [i, email] of known.entries()) {
      const [knownTime, unknownTime] =
        i % 2 === 0
          ? [await time(email), await time(newEmail())]
          : await time(newEmail()).then(async (unknownFirst) => [await time(email), unknownFirst]);
      if (knownTime > unknownTime) knownSlower++;
    }
    expect(knownSlower).toBeGreaterThan(4);
    expect(knownSlower).toBeLessThan(20);
  });

  it('refuses an expired link and an unknown one with 410, and a forged form token', async () => {
    const { email } = await signedUp();
    const account = await testApp.app.get(AccountsService).findByEmail(email);
    const expired = await testApp.app.get(EmailTokensRepository).issue(account!.id, 'password_reset', -1000);
    const visitor = new Browser(testApp);
    const page = await visitor.get(`/password-reset/${expired}`);
    expect(page.status).toBe(410);
    expect(await pageText(page)).toContain('This link no longer works');
    expect(
      (await visitor.post(`/password-reset/${expired}`, { password: NEW_PASSWORD }, undefined, '/password-reset'))
        .status,
    ).toBe(410);
    expect((await visitor.get('/password-reset/not-a-token')).status).toBe(410);
    expect((await visitor.get(`/password-reset/${'A'.repeat(43)}`)).status).toBe(410);

    const working = await testApp.app.get(EmailTokensRepository).issue(account!.id, 'password_reset', 60_000);
    const forged = await visitor.post(`/password-reset/${working}`, { password: NEW_PASSWORD }, 'forged');
    expect(forged.status).toBe(403);
    expect((await visitor.get(`/password-reset/${working}`)).status).toBe(200);
  });

  it('sends at most 5 reset emails an hour per address, and per client address', async () => {
    const { email } = await signedUp();
    const browser = new Browser(testApp);
    for (let i = 0; i < 5; i++) {
      browser.moveTo(newClient());
      expect((await askForReset(email, browser)).status).toBe(200);
    }
    browser.moveTo(newClient());
    const limited = await askForReset(email, browser);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // An unknown address is limited the same way: the limit tells nothing about accounts.
    const unknown = newEmail();
    for (let i = 0; i < 5; i++) {
      browser.moveTo(newClient());
      expect((await askForReset(unknown, browser)).status).toBe(200);
    }
    browser.moveTo(newClient());
    expect((await askForReset(unknown, browser)).status).toBe(429);

    const oneClient = new Browser(testApp);
    for (let i = 0; i < 5; i++) expect((await askForReset(newEmail(), oneClient)).status).toBe(200);
    expect((await askForReset(newEmail(), oneClient)).status).toBe(429);

    await eventually(async () => expect((await sink.mailsTo(email, 5)).length).toBe(5));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(sink.received.filter((mail) => mail.to === email)).toHaveLength(5);
  });

  it('asks for the email again when none is given (400), sending nothing', async () => {
    const before = await outbox().count();
    const answer = await new Browser(testApp).post('/password-reset', { email: '  ' });
    expect(answer.status).toBe(400);
    expect(await pageText(answer)).toContain('Enter the email of your account.');
    expect(await outbox().count()).toBe(before);
  });

  it('links "Forgot password?" from the sign-in page', async () => {
    const html = await (await new Browser(testApp).get('/login')).text();
    expect(html).toContain('<a href="/password-reset">Forgot password?</a>');
  });
});

describe('a mail server that is down or refuses', () => {
  it('keeps a message while the server is down and delivers it once it is back', async () => {
    const { email } = await signedUp();
    await sink.stop();
    try {
      await askForReset(email);
      await eventually(async () => {
        const stored = await outbox().findFirst({ where: { recipient: email } });
        expect(stored?.attempts).toBeGreaterThanOrEqual(1);
        expect(stored?.status).toBe('pending');
        expect(stored?.lastError).toMatch(/ECONNREFUSED|ECONNECTION|connect/i);
      }, 15_000);
    } finally {
      await sink.restart();
    }
    const [mail] = await sink.mailsTo(email, 1, 20_000);
    expect(mail.subject).toBe('Reset your shortlink password');
    // Recorded just after the server took it.
    await eventually(async () =>
      expect(await outbox().findFirst({ where: { recipient: email } })).toMatchObject({
        status: 'sent',
        text: '',
        html: '',
      }),
    );
  });

  it('retries a 4xx refusal and delivers when the server takes it', async () => {
    const { email } = await signedUp();
    sink.mode = 'temporary-failure';
    const refusedBefore = sink.refused;
    try {
      await askForReset(email);
      await until(() => sink.refused > refusedBefore, 15_000);
    } finally {
      sink.mode = 'accept';
    }
    await sink.mailsTo(email, 1, 20_000);
    await eventually(async () => {
      const sent = await outbox().findFirst({ where: { recipient: email } });
      expect(sent?.status).toBe('sent');
      expect(sent?.attempts).toBeGreaterThanOrEqual(2);
    });
  });

  it('gives a 5xx refusal up after the retries, and empties the body', async () => {
    const { email } = await signedUp();
    sink.mode = 'permanent-failure';
    try {
      await askForReset(email);
      // MAIL_RETRY_SCHEDULE=1,1,1: four attempts, then given up.
      await eventually(async () => {
        const stored = await outbox().findFirst({ where: { recipient: email } });
        expect(stored).toMatchObject({ status: 'failed', attempts: 4, text: '', html: '' });
        expect(stored?.lastError).toMatch(/^550 /);
      }, 30_000);
    } finally {
      sink.mode = 'accept';
    }
    expect(sink.received.filter((mail) => mail.to === email)).toEqual([]);
  });
});

describe('notices', () => {
  it('tells the owner when a webhook endpoint of theirs is disabled', async () => {
    const owner = await createAccountWithToken(testApp);
    const prisma = testApp.app.get(PrismaService);
    const endpoint = await prisma.webhookEndpoint.create({
      data: {
        accountId: owner.accountId,
        url: 'https://hooks.example.test/shortlink',
        events: 'link.created',
        secret: 'whsec_test',
        failingSince: new Date(Date.now() - 5 * 86_400_000),
      },
    });
    await testApp.app.get(MailNotices).check();
    // As the delivery worker disables an endpoint after 5 days of failures.
    await prisma.webhookEndpoint.update({ where: { id: endpoint.id }, data: { disabledAt: new Date() } });
    await testApp.app.get(MailNotices).check();
    const [mail] = await sink.mailsTo(owner.email);
    expect(mail.subject).toBe('A webhook endpoint of yours was disabled');
    expect(mail.text).toContain('https://hooks.example.test/shortlink');
    expect(mail.text).toContain(`${TEST_SHORT_BASE_URL}/dashboard/webhooks`);
    // Told once.
    await testApp.app.get(MailNotices).check();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(sink.received.filter((received) => received.to === owner.email)).toHaveLength(1);
  });

  it('tells the admins of reports at most once per 10 minutes, listing those since the last', async () => {
    const admin = await createAdminWithToken(testApp);
    const owner = await createAccountWithToken(testApp);
    const links = [];
    for (let i = 0; i < 3; i++) {
      const created = await testApp.request('/api/links', {
        method: 'POST',
        headers: owner.apiKey,
        json: { url: `https://reported.example.test/${i}` },
      });
      links.push(((await created.json()) as { code: string }).code);
    }
    const reports = testApp.app.get(ReportsService);
    const notices = testApp.app.get(MailNotices);
    const report = (code: string) =>
      reports.submit({ short_url: `${TEST_SHORT_BASE_URL}/${code}`, reason: 'phishing', details: '', email: '' });

    await report(links[0]);
    await notices.check();
    const [first] = await sink.mailsTo(admin.email);
    expect(first.subject).toBe('A short link was reported');
    expect(first.text).toContain(`${TEST_SHORT_BASE_URL}/${links[0]}`);

    await report(links[1]);
    await report(links[2]);
    await notices.check();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(sink.received.filter((mail) => mail.to === admin.email)).toHaveLength(1);

    await notices.check(new Date(Date.now() + REPORTS_DIGEST_INTERVAL_MS + 1000));
    const [, second] = await sink.mailsTo(admin.email, 2);
    expect(second.subject).toBe('2 short links were reported');
    expect(second.text).toContain(`${TEST_SHORT_BASE_URL}/${links[1]}`);
    expect(second.text).toContain(`${TEST_SHORT_BASE_URL}/${links[2]}`);
    expect(second.text).not.toContain(`${TEST_SHORT_BASE_URL}/${links[0]} `);
  });
});

describe('sign-in changes told to the owner', () => {
  const changes = async (email: string, count: number): Promise<string[]> =>
    (await sink.mailsTo(email, count)).map((mail) => mail.subject.replace('Your shortlink sign-in changed: ', ''));

  const changePassword = (browser: Browser, current: string, next: string) =>
    browser.post('/account/password', { current_password: current, new_password: next }, undefined, '/account');

  /** A passkey as the browser's ceremony stores it (the ceremony itself: passkeys-browser spec). */
  async function storedPasskey(email: string): Promise<string> {
    const account = await testApp.app.get(AccountsService).getByEmail(email);
    const id = `pk-${account.id}`;
    await testApp.app
      .get(PrismaService)
      .passkey.create({ data: { id, accountId: account.id, name: 'Phone', publicKey: 'AQ' } });
    return id;
  }

  it('tells of a new password, two-factor on and off, and a passkey removed, with what to do if it was not them', async () => {
    const { email, browser } = await signedUp();
    expect((await changePassword(browser, PASSWORD, NEW_PASSWORD)).status).toBe(303);
    const [mail] = await sink.mailsTo(email);
    expect(mail.subject).toBe('Your shortlink sign-in changed: a new password was set');
    expect(mail.text).toMatch(/^A new password was set on your shortlink account \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
    expect(mail.text).toContain(`${TEST_SHORT_BASE_URL}/password-reset`);
    expect(mail.text).toContain(`${TEST_SHORT_BASE_URL}/account`);
    expect(mail.html).toContain(`href="${TEST_SHORT_BASE_URL}/password-reset"`);
    // Nothing of the password itself.
    expect(mail.text + mail.html).not.toContain(NEW_PASSWORD);

    const { answer: on } = await turnOnTwoFactor(browser);
    expect(on.status).toBe(200);
    const recoveryCode = /<li><code>([a-z0-9-]+)<\/code><\/li>/.exec(await on.text())![1];
    expect(await changes(email, 2)).toEqual(['a new password was set', 'two-factor sign-in was turned on']);

    const off = await browser.post(
      '/account/two-factor/delete',
      { password: NEW_PASSWORD, code: recoveryCode },
      undefined,
      '/account',
    );
    expect(off.status).toBe(303);
    expect((await changes(email, 3))[2]).toBe('two-factor sign-in was turned off');

    const passkey = await storedPasskey(email);
    const removed = await browser.post(`/account/passkeys/${passkey}/delete`, {}, undefined, '/account');
    expect(removed.status).toBe(303);
    expect((await changes(email, 4))[3]).toBe('a passkey was removed');
  });

  it('tells of the changes an administrator makes with the CLI: set-password and reset-2fa', async () => {
    const { email, browser } = await signedUp();
    expect((await turnOnTwoFactor(browser)).answer.status).toBe(200);
    await sink.mailsTo(email);
    // The command stores the emails in the outbox; the running service sends them.
    const env = { DATABASE_URL: testApp.database.url, SMTP_URL: sink.url, SHORT_BASE_URL: TEST_SHORT_BASE_URL };

    const reset = await shortlinkInProcess(['account', 'reset-2fa', email], env);
    expect(reset.status).toBe(0);
    const setPassword = await shortlinkInProcess(['account', 'set-password', email], env, `${NEW_PASSWORD}\n`);
    expect(setPassword.status).toBe(0);
    expect((await changes(email, 3)).slice(1).sort()).toEqual([
      'a new password was set',
      'two-factor sign-in was turned off',
    ]);
  });

  it('tells nothing for a refused change: a wrong current password (400), an unknown passkey (404), a stale session (403)', async () => {
    const { email, browser } = await signedUp();
    expect((await changePassword(browser, 'not the password at all', NEW_PASSWORD)).status).toBe(400);
    expect((await browser.post('/account/passkeys/no-such-passkey/delete', {}, undefined, '/account')).status).toBe(
      404,
    );
    // A session that has not proved a factor for over 5 minutes (sudo mode) removes no passkey.
    const passkey = await storedPasskey(email);
    await testApp.app
      .get(PrismaService)
      .session.updateMany({ where: { account: { email } }, data: { authenticatedAt: new Date(Date.now() - 600_000) } });
    expect((await browser.post(`/account/passkeys/${passkey}/delete`, {}, undefined, '/account')).status).toBe(403);

    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(sink.received.filter((received) => received.to === email)).toEqual([]);
    expect(await outbox().count({ where: { recipient: email } })).toBe(0);
  });
});

describe('SIGNUP=verify', () => {
  let verifying: TestApp;
  beforeAll(async () => {
    verifying = await startTestApp({ ...ENV, SMTP_URL: sink.url, SIGNUP: 'verify' }, testApp.database);
  }, 60_000);
  afterAll(async () => {
    await verifying?.close();
  });

  it('lets a sign-up in, creating nothing until the email link is opened', async () => {
    const { email, browser } = await signedUp(verifying);
    const [mail] = await sink.mailsTo(email);
    expect(mail.subject).toBe('Confirm your email for shortlink');
    const link = MailSink.linkIn(mail, `${TEST_SHORT_BASE_URL}/signup/verify/`);

    const dashboard = await browser.get('/dashboard');
    expect(dashboard.status).toBe(200);
    const text = await pageText(dashboard);
    expect(text).toContain('Check your email');
    expect(text).not.toContain('Create a link');

    // Pages and API alike: 403 email_unverified for links and tokens.
    const page = await browser.post('/dashboard', { url: 'https://example.com/' }, undefined, '/dashboard/tokens');
    expect(page.status).toBe(403);
    expect(
      (await browser.post('/dashboard/tokens', { name: 'ci', scopes: 'links:read' }, undefined, '/dashboard/tokens'))
        .status,
    ).toBe(403);
    const account = await verifying.app.get(AccountsService).findByEmail(email);
    const { token } = await verifying.app
      .get(TokensService)
      .create(account!.id, 'made by an admin', ['links:read', 'links:write']);
    const refused = await verifying.request('/api/links', {
      method: 'POST',
      headers: { 'x-api-key': token },
      json: { url: 'https://example.com/' },
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe('email_unverified');
    const bulk = await verifying.request('/api/links/bulk', {
      method: 'POST',
      headers: { 'x-api-key': token },
      json: { links: [{ url: 'https://example.com/' }] },
    });
    expect(bulk.status).toBe(403);
    // Reading is allowed.
    expect((await verifying.request('/api/links', { headers: { 'x-api-key': token } })).status).toBe(200);

    // "Send again": a second link.
    const again = await browser.post('/signup/verify/send', {}, undefined, '/dashboard');
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe('/dashboard?verify=sent');
    await sink.mailsTo(email, 2);

    // At most 5 an hour: the sixth "Send again" says to wait, and sends nothing.
    for (let i = 0; i < 4; i++) {
      const more = await browser.post('/signup/verify/send', {}, undefined, '/dashboard');
      expect(more.headers.get('location')).toBe('/dashboard?verify=sent');
    }
    const limited = await browser.post('/signup/verify/send', {}, undefined, '/dashboard');
    expect(limited.headers.get('location')).toBe('/dashboard?verify=wait');
    expect(await pageText(await browser.get('/dashboard?verify=wait'))).toContain('Too many links asked for');
    await sink.mailsTo(email, 6);

    const opened = await browser.get(link.slice(TEST_SHORT_BASE_URL.length));
    expect(opened.status).toBe(200);
    expect(await pageText(opened)).toContain('Email confirmed');
    // Used once.
    expect((await browser.get(link.slice(TEST_SHORT_BASE_URL.length))).status).toBe(410);

    const created = await verifying.request('/api/links', {
      method: 'POST',
      headers: { 'x-api-key': token },
      json: { url: 'https://example.com/' },
    });
    expect(created.status).toBe(201);
    expect(await pageText(await browser.get('/dashboard'))).toContain('Create a link');
  });

  it('keeps accounts made by the CLI or before able to create, and anonymous links unaffected', async () => {
    const owner = await createAccountWithToken(verifying);
    const created = await verifying.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: { url: 'https://example.com/' },
    });
    expect(created.status).toBe(201);
    const anonymous = await verifying.request('/api/links', { method: 'POST', json: { url: 'https://example.com/' } });
    expect(anonymous.status).toBe(201);
  });
});

describe('without SMTP_URL', () => {
  let quiet: TestApp;
  beforeAll(async () => {
    quiet = await startTestApp(ENV, testApp.database);
  }, 60_000);
  afterAll(async () => {
    await quiet?.close();
  });

  it('says to ask an administrator, and stores no email', async () => {
    const { email } = await signedUp(quiet);
    const page = await new Browser(quiet).get('/password-reset');
    expect(await pageText(page)).toContain('shortlink account set-password');
    // The page has no form: a form token from another signed-out page, as a stale tab would post.
    const asked = await new Browser(quiet).post('/password-reset', { email }, undefined, '/login');
    expect(asked.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await outbox().count({ where: { recipient: email } })).toBe(0);
  });
});
