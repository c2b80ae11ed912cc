import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { PrismaService } from '../src/database/prisma.service.js';
import { eventually } from './support/eventually.js';
import { createAccountWithToken, type TestAccount } from './support/factories.js';
import { shortlinkInProcess } from './support/processes/cli-in-process.js';
import type { ProcessResult } from './support/processes/run-source.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { createTestDatabase, type TestDatabase } from './support/database/test-database.js';

/** `shortlink links import` and `export` on the spec's database (in-process, as `runCli` runs them). */
describe('shortlink links import / export', () => {
  let database: TestDatabase;
  let testApp: TestApp;
  let dir: string;
  const shortlink = (args: string[]): Promise<ProcessResult> =>
    shortlinkInProcess(args, { DATABASE_URL: database.url });
  const csvFile = (name: string, content: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const linksOf = (account: TestAccount) =>
    testApp.app.get(PrismaService).link.findMany({ where: { accountId: account.accountId }, orderBy: { code: 'asc' } });

  beforeAll(async () => {
    database = await createTestDatabase();
    testApp = await startTestApp({}, database);
    dir = mkdtempSync(join(tmpdir(), 'shortlink-csv-'));
  });
  afterAll(async () => {
    await testApp.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    [
      'YOURLS',
      'keyword,url,title,timestamp,ip,clicks\nyourls1,https://example.com/y,Title,2024-01-02 03:04:05,127.0.0.1,7\n',
      'yourls1',
    ],
    ['Shlink', 'shortCode,longUrl,title,tags\nshlink1,https://example.com/s,,"a,b"\n', 'shlink1'],
    ['Kutt', 'target,address,description\nhttps://example.com/k,kutt-addr,desc\n', undefined],
    ['Bitly', 'created_at,title,long_url,link\n2024-01-01,Title,https://example.com/b,https://bit.ly/x\n', undefined],
  ])('loads an export of %s as it is', async (_peer, csv, code) => {
    const account = await createAccountWithToken(testApp);
    const result = await shortlink(['links', 'import', account.email, csvFile(`${_peer}.csv`, csv)]);

    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('created 1, skipped 0 (code taken), invalid 0\n');
    const [link] = await linksOf(account);
    expect(link.url).toMatch(/^https:\/\/example\.com\/[ysbk]$/);
    if (code) expect(link.code).toBe(code);
    else expect(link.code).toMatch(/^[0-9A-Za-z]{7}$/);
  });

  it('reads a BOM, CRLF line ends and quoted commas, and reports bad rows by line without stopping', async () => {
    const account = await createAccountWithToken(testApp);
    await testApp.request('/api/links', {
      method: 'POST',
      headers: account.apiKey,
      json: { url: 'https://example.com/mine', custom_code: 'taken-before' },
    });
    const csv = [
      'URL,Code', //                                            line 1
      '"https://example.com/a,b?x=1",quoted', //              line 2: a comma inside quotes
      'javascript:alert(1),badurl', //                        line 3: invalid URL
      'https://example.com/taken,taken-before', //            line 4: code taken
      'https://example.com/only-one-field', //                line 5: wrong number of fields
      'https://example.com/reserved,api', //                  line 6: reserved code
      'https://example.com/ok,', //                           line 7: generated code
      '"https://example.com/unclosed,x', //                   line 8: a quote never closed
    ].join('\r\n');
    const file = csvFile('mixed.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(csv)]));

    const result = await shortlink(['links', 'import', account.email, file]);

    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('created 2, skipped 1 (code taken), invalid 4');
    expect(lines.slice(0, -1).sort()).toEqual([
      'line 3: invalid: url must be an absolute http:// or https:// URL',
      'line 4: skipped: The code "taken-before" is already taken',
      'line 5: invalid: the row does not have as many fields as the header',
      expect.stringMatching(/^line 6: invalid: .*reserved/),
      'line 8: invalid: a quoted field is never closed',
    ]);
    const urls = (await linksOf(account)).map((link) => link.url).sort();
    expect(urls).toEqual(['https://example.com/a,b?x=1', 'https://example.com/mine', 'https://example.com/ok']);
  });

  it('refuses a file without a url column with one line, importing nothing', async () => {
    const account = await createAccountWithToken(testApp);
    const result = await shortlink(['links', 'import', account.email, csvFile('nourl.csv', 'code,title\nabc,Title\n')]);

    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'shortlink: The CSV has no url column (one of: url, long_url, longUrl, target, original_url); its header row is: code, title',
    ]);
    expect(await linksOf(account)).toEqual([]);
    const missing = await shortlink(['links', 'import', account.email, join(dir, 'nope.csv')]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^shortlink: Cannot read .*nope\.csv/);
  });

  it('exports an account as CSV that imports back unchanged into another account', async () => {
    const source = await createAccountWithToken(testApp);
    const bulk = await testApp.request('/api/links/bulk', {
      method: 'POST',
      headers: source.apiKey,
      json: {
        links: [
          { url: 'https://example.com/one?q="quoted",comma', custom_code: 'rt-one', tags: ['News', 'spring-sale'] },
          {
            url: 'https://example.com/two',
            custom_code: 'rt-two',
            expires_at: '2099-06-01T12:00:00.000Z',
            ios_url: 'https://apps.apple.com/app/id42',
            android_url: 'https://play.google.com/store/apps/details?id=com.example',
          },
          // A tag that starts with "-" makes the cell one a spreadsheet would take for a formula.
          { url: 'https://example.com/three', tags: ['-minus', 'x'] },
          { url: 'https://example.com/secret', custom_code: 'rt-secret', password: 'open sesame' },
        ],
      },
    });
    expect(bulk.status).toBe(200);
    await testApp.request('/rt-one');
    await testApp.request('/rt-one');
    await eventually(async () => {
      const link = await testApp.request('/api/links/rt-one', { headers: source.apiKey });
      expect(await link.json()).toMatchObject({ clicks: 2 });
    });

    const exported = await shortlink(['links', 'export', source.email]);
    expect(exported.status).toBe(0);
    expect(exported.stderr).toBe('shortlink: exported 4 links\n');
    const rows = parse<Record<string, string>>(exported.stdout, { columns: true });
    expect(Object.keys(rows[0])).toEqual([
      'code',
      'url',
      'created_at',
      'clicks',
      'expires_at',
      'tags',
      'ios_url',
      'android_url',
      'password_protected',
    ]);
    expect(rows.find((row) => row.code === 'rt-one')).toMatchObject({
      clicks: '2',
      tags: 'news spring-sale',
      ios_url: '',
      android_url: '',
      password_protected: 'false',
    });
    expect(rows.find((row) => row.code === 'rt-two')).toMatchObject({
      expires_at: '2099-06-01T12:00:00.000Z',
      clicks: '0',
      tags: '',
      ios_url: 'https://apps.apple.com/app/id42',
      android_url: 'https://play.google.com/store/apps/details?id=com.example',
    });
    // Only whether it has a password: never the password, nor its hash.
    expect(rows.find((row) => row.code === 'rt-secret')).toMatchObject({ password_protected: 'true' });
    expect(exported.stdout).not.toContain('scrypt');
    expect(rows.find((row) => row.url === 'https://example.com/three')).toMatchObject({ tags: "'-minus x" });

    // Codes are global: move the links by deleting them first, as when leaving an old instance.
    await testApp.app.get(PrismaService).link.deleteMany({ where: { accountId: source.accountId } });
    const target = await createAccountWithToken(testApp);
    const imported = await shortlink(['links', 'import', target.email, csvFile('roundtrip.csv', exported.stdout)]);
    // The protected link is left out, said so, rather than made open to anyone.
    const protectedLine = exported.stdout.split('\n').findIndex((line) => line.startsWith('rt-secret,')) + 1;
    expect(imported.stdout).toBe(
      `line ${protectedLine}: invalid: the link is password-protected, and its password is not in the export (only a hash is stored): add it with the API or the dashboard and set its password\n` +
        'created 3, skipped 0 (code taken), invalid 1\n',
    );

    const again = await shortlink(['links', 'export', target.email]);
    const withoutProtected = exported.stdout
      .split('\n')
      .filter((line) => !line.startsWith('rt-secret,'))
      .join('\n');
    expect(again.stdout).toBe(withoutProtected);
    const moved = await testApp.request('/rt-two', {
      headers: { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X)' },
    });
    expect(moved.headers.get('location')).toBe('https://apps.apple.com/app/id42');
    const tagged = await testApp.request('/api/links?tag=news', { headers: target.apiKey });
    expect(await tagged.json()).toMatchObject({ total: 1, data: [{ code: 'rt-one', tags: ['news', 'spring-sale'] }] });
  });

  it('reads tags separated by spaces or commas, any case, and reports a row with bad tags as invalid', async () => {
    const account = await createAccountWithToken(testApp);
    const csv = [
      'url,code,tags', //                                                   line 1
      'https://example.com/spaces,tags-spaces,News  promo', //              line 2
      'https://example.com/commas,tags-commas,"a, b,c"', //                 line 3
      'https://example.com/none,tags-none,', //                             line 4
      'https://example.com/bad,tags-bad,good bad_tag', //                   line 5: "_" is no tag character
      `https://example.com/many,tags-many,${Array.from({ length: 11 }, (_, i) => `t${i}`).join(' ')}`, // line 6
    ].join('\n');

    const result = await shortlink(['links', 'import', account.email, csvFile('tags.csv', csv)]);

    const lines = result.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('created 3, skipped 0 (code taken), invalid 2');
    expect(lines.slice(0, -1)).toEqual([
      'line 5: invalid: tags must each be 1 to 32 letters (a-z), digits or hyphens: "bad_tag" is not',
      'line 6: invalid: tags must hold at most 10 tags (11 given)',
    ]);
    const tagsOf = async (code: string) =>
      ((await (await testApp.request(`/api/links/${code}`, { headers: account.apiKey })).json()) as { tags: string[] })
        .tags;
    expect(await tagsOf('tags-spaces')).toEqual(['news', 'promo']);
    expect(await tagsOf('tags-commas')).toEqual(['a', 'b', 'c']);
    expect(await tagsOf('tags-none')).toEqual([]);
    expect((await linksOf(account)).map((link) => link.code)).toEqual(['tags-commas', 'tags-none', 'tags-spaces']);
  });

  it('prefixes every cell a spreadsheet would read as a formula with a quote, and imports it back unchanged', async () => {
    const source = await createAccountWithToken(testApp);
    const bulk = await testApp.request('/api/links/bulk', {
      method: 'POST',
      headers: source.apiKey,
      json: {
        links: [
          { url: 'https://example.com/minus', custom_code: '-2-3' },
          { url: 'https://example.com/cells?a=-A1-B1', custom_code: '-A1-B1' },
          { url: 'https://example.com/plain', custom_code: 'plain-code' },
        ],
      },
    });
    expect(bulk.status).toBe(200);
    // Codes no custom code may be today, written as an older version or another tool might have:
    // the export must not count on the rules of creation.
    const prisma = testApp.app.get(PrismaService);
    for (const code of ['=1+1', '@x', '+x', "'=q"]) {
      await prisma.link.create({ data: { code, url: 'https://example.com/raw', accountId: source.accountId } });
    }

    const exported = await shortlink(['links', 'export', source.email]);
    expect(exported.status).toBe(0);
    const rows: string[][] = parse(exported.stdout, { from_line: 2 });
    expect(rows.map(([code]) => code).sort()).toEqual(
      ["'+x", "'-2-3", "'-A1-B1", "'=1+1", "'@x", "''=q", 'plain-code'].sort(),
    );
    for (const cell of rows.flat()) expect(cell).not.toMatch(/^[=+\-@\t\r]/);

    await prisma.link.deleteMany({ where: { accountId: source.accountId } });
    const target = await createAccountWithToken(testApp);
    const imported = await shortlink(['links', 'import', target.email, csvFile('formulas.csv', exported.stdout)]);

    // The codes creation refuses are refused on import too (unprefixed: the reasons are about them).
    const lines = imported.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('created 3, skipped 0 (code taken), invalid 4');
    expect(
      lines
        .slice(0, -1)
        .map((line) => line.replace(/^line \d+: /, ''))
        .sort(),
    ).toEqual([
      'invalid: custom_code may only contain letters, digits, "_" and "-"',
      'invalid: custom_code may only contain letters, digits, "_" and "-"',
      'invalid: custom_code must be 3 to 64 characters long',
      'invalid: custom_code must be 3 to 64 characters long',
    ]);
    expect((await linksOf(target)).map(({ code, url }) => ({ code, url }))).toEqual([
      { code: '-2-3', url: 'https://example.com/minus' },
      { code: '-A1-B1', url: 'https://example.com/cells?a=-A1-B1' },
      { code: 'plain-code', url: 'https://example.com/plain' },
    ]);
    const again = await shortlink(['links', 'export', target.email]);
    const kept = exported.stdout.split('\n').filter((line) => !/^'(=|@|\+|'=)/.test(line));
    expect(again.stdout).toBe(kept.join('\n'));
  });
});
