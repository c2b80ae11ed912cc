import { randomBytes } from 'node:crypto';
import { AdminService } from '../src/admin/admin.service.js';
import { CLI_ACTOR } from '../src/admin/audit-log.js';
import { BLOCK_RESWEEP_MS } from '../src/admin/admin.service.js';
import { PrismaService } from '../src/database/prisma.service.js';
import { REPORT_LIMIT } from '../src/reports/pages/report-limits.js';
import { eventually } from './support/eventually.js';
import { createLink, visit } from './support/api-client.js';
import { createAccountWithToken, createAdminWithToken, type TestAccount } from './support/factories.js';
import { Browser } from './support/browser/form-browser.js';
import { TEST_SHORT_BASE_URL, type TestApp } from './support/test-app.js';
import { startTwoInstances, type TwoInstances } from './support/processes/two-instances.js';

/**
 * The public /report page, and blocking hosts as seen from two instances sharing one database
 * and one Redis (behind a load balancer): the report limit is one counter for both, and a block
 * made on one disables the links the other has cached, at once.
 */
const ENV = {
  RATE_LIMIT_ANONYMOUS: '1000000',
  RATE_LIMIT_TOKEN: '1000000',
  TRUST_PROXY: 'true',
};
const SCRIPT = '<script>alert(1)</script>';

/**
 * A client address of this run alone: report counters live in the shared Redis for an hour, across
 * runs and both projects, so `newClient()`'s addresses (the same every run) would be limited.
 */
function randomClient(): { 'x-forwarded-for': string } {
  return { 'x-forwarded-for': `10.${[...randomBytes(3)].join('.')}` };
}

let instances: TwoInstances | undefined;
let a: TestApp;
let b: TestApp;
let owner: TestAccount;
let admin: TestAccount;

beforeAll(async () => {
  instances = await startTwoInstances(ENV);
  ({ a, b } = instances);
  owner = await createAccountWithToken(a);
  admin = await createAdminWithToken(a);
}, 60_000);
afterAll(async () => {
  await instances?.close();
});

const reports = () => a.app.get(PrismaService).report.findMany({ orderBy: { createdAt: 'asc' } });

describe('the /report page', () => {
  it('shows the form with its fields and reasons, filled in from ?url=', async () => {
    const response = await a.request(`/report?url=${encodeURIComponent(`${TEST_SHORT_BASE_URL}/abc"><b>`)}`);

    expect(response.status).toBe(200);
    const html = await response.text();
    for (const label of ['Short URL', 'Reason', 'Details', 'Email']) expect(html).toContain(`>${label}`);
    for (const reason of ['phishing', 'malware', 'spam', 'other']) expect(html).toContain(`value="${reason}"`);
    expect(html).toContain('Send report');
    expect(html).toContain('value="https://sl.test/abc&quot;&gt;&lt;b&gt;"');
    expect(html).toContain('name="_csrf"');
  });

  it('takes a report (short URL, bare code or URL without its scheme) and answers “Thank you”', async () => {
    const code = (await createLink(a, owner, { url: 'https://reported.example/' })).code;
    const before = (await reports()).length;
    const browser = new Browser(a, randomClient());

    for (const shortUrl of [`${TEST_SHORT_BASE_URL}/${code}`, code, `SL.TEST/${code}`]) {
      const sent = await browser.post('/report', {
        short_url: shortUrl,
        reason: 'phishing',
        details: 'Asks for my bank password',
        email: 'Reporter@Example.test',
      });
      expect(sent.status).toBe(303);
      expect(sent.headers.get('location')).toBe('/report?sent=1');
      browser.moveTo(randomClient());
    }
    const thanks = await (await browser.get('/report?sent=1')).text();
    expect(thanks).toContain('Thank you.');

    const stored = (await reports()).slice(before);
    expect(
      stored.map(({ code: reported, reason, details, email, status }) => ({
        reported,
        reason,
        details,
        email,
        status,
      })),
    ).toEqual(
      Array(3).fill({
        reported: code,
        reason: 'phishing',
        details: 'Asks for my bank password',
        email: 'reporter@example.test',
        status: 'open',
      }),
    );
  });

  it('refuses a report without a valid form token (403) and stores nothing', async () => {
    const code = (await createLink(a, owner, { url: 'https://csrf.example/' })).code;
    const before = (await reports()).length;
    const browser = new Browser(a, randomClient());

    for (const csrf of ['', 'forged']) {
      const response = await browser.post('/report', { short_url: code, reason: 'spam', details: '', email: '' }, csrf);
      expect(response.status).toBe(403);
    }
    // A token of another browser (another CSRF cookie) is no good either.
    const other = await new Browser(a, randomClient()).csrfFrom('/report');
    expect(
      (await browser.post('/report', { short_url: code, reason: 'spam', details: '', email: '' }, other)).status,
    ).toBe(403);
    expect((await reports()).length).toBe(before);
  });

  it('says every field’s problem at once, keeps the input escaped, and stores nothing', async () => {
    const before = (await reports()).length;
    const browser = new Browser(a, randomClient());

    const response = await browser.post('/report', {
      short_url: SCRIPT,
      reason: SCRIPT,
      details: `${SCRIPT}${'x'.repeat(10_000)}`,
      email: SCRIPT,
    });

    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).not.toContain(SCRIPT);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('Enter a short URL of this service, like https://sl.test/Ab3dE9x.');
    expect(html).toContain('Choose a reason: phishing, malware, spam, other.');
    expect(html).toContain('Use at most 2000 characters for the details (you used 10025).');
    expect(html).toContain('Enter an email address like name@example.com, or leave it empty.');
    expect(html.match(/aria-invalid="true"/g)).toHaveLength(4);
    expect((await reports()).length).toBe(before);
  });

  it('refuses a link that does not exist, or one of another site, and takes repeated fields as their first value', async () => {
    const code = (await createLink(a, owner, { url: 'https://repeat.example/' })).code;
    const browser = new Browser(a, randomClient());
    const send = (fields: Record<string, string | string[]>) => {
      browser.moveTo(randomClient());
      return browser.post('/report', { reason: 'spam', details: '', email: '', ...fields });
    };

    const unknown = await send({ short_url: 'NoSuchCode' });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('There is no such short link here.');
    expect((await send({ short_url: `https://elsewhere.example/${code}` })).status).toBe(400);
    expect((await send({ short_url: `${TEST_SHORT_BASE_URL}/${code}/more` })).status).toBe(400);
    expect((await send({ short_url: 'x'.repeat(3000) })).status).toBe(400);
    expect((await send({ short_url: [code, 'NoSuchCode'], reason: ['malware', 'x'] })).status).toBe(303);
  });

  it(`takes ${REPORT_LIMIT} reports an hour from one address, counted on both instances, then answers 429`, async () => {
    const code = (await createLink(a, owner, { url: 'https://limit.example/' })).code;
    const client = randomClient();
    const answers: number[] = [];
    for (let report = 0; report <= REPORT_LIMIT; report++) {
      const browser = new Browser(report % 2 === 0 ? a : b, client);
      answers.push((await browser.post('/report', { short_url: code, reason: 'spam', details: '', email: '' })).status);
    }
    expect(answers).toEqual([...Array<number>(REPORT_LIMIT).fill(303), 429]);

    const limited = await new Browser(b, client).post('/report', {
      short_url: code,
      reason: 'spam',
      details: '',
      email: '',
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(await limited.text()).toContain('Too many reports from your network. Try again in');
    // Another address is not limited.
    expect(
      (
        await new Browser(b, randomClient()).post('/report', {
          short_url: code,
          reason: 'spam',
          details: '',
          email: '',
        })
      ).status,
    ).toBe(303);
  });

  it('is linked from every page’s footer and from a disabled link’s page', async () => {
    expect(await (await a.request('/login')).text()).toContain('<a href="/report">Report a link</a>');
  });
});

describe('blocking a host, seen from two instances', () => {
  it('disables a link the other instance has cached, at once', async () => {
    const code = (await createLink(a, owner, { url: 'https://cached-elsewhere.example/' })).code;
    expect((await visit(b, code)).status).toBe(302);
    expect((await visit(b, code)).status).toBe(302); // now answered from b's cache (the fast path)

    const blocked = await a.request('/api/admin/blocked-hosts', {
      method: 'POST',
      headers: admin.bearer,
      json: { host: 'cached-elsewhere.example' },
    });
    expect(blocked.status).toBe(201);

    expect((await visit(b, code)).status).toBe(410);
    const unblocked = await b.request('/api/admin/blocked-hosts/cached-elsewhere.example', {
      method: 'DELETE',
      headers: admin.bearer,
    });
    expect(unblocked.status).toBe(204);
    expect((await visit(a, code)).status).toBe(302);
    expect((await visit(b, code)).status).toBe(302);
  });

  it('refuses new links to it on the other instance once its list is read again, and the second sweep catches one made before', async () => {
    // b reads the list now (it is then trusted for BLOCKED_HOSTS_TTL_MS).
    await createLink(b, owner, { url: 'https://warm-the-list.example/' });
    await a.app.get(AdminService).blockHost(CLI_ACTOR, 'late.example');
    // Made on b within its list's TTL: it may slip through the check…
    const response = await b.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: { url: 'https://late.example/' },
    });
    if (response.status === 201) {
      const { code } = (await response.json()) as { code: string };
      // …but not past the block's second sweep.
      await eventually(async () => expect((await visit(b, code)).status).toBe(410), BLOCK_RESWEEP_MS + 5_000);
    } else {
      expect(response.status).toBe(400);
    }
    await eventually(async () => {
      const later = await b.request('/api/links', {
        method: 'POST',
        headers: owner.apiKey,
        json: { url: 'https://late.example/again' },
      });
      expect(later.status).toBe(400);
    }, 10_000);
  }, 30_000);
});
