import { AccountsService } from '../src/accounts/accounts.service.js';
import { ClickCounter } from '../src/clicks/click-counter.js';
import { PrismaService } from '../src/database/prisma.service.js';
import type { Link, LinkList, Problem } from '../sdk/client.js';
import { createAccountWithToken, newClient, type TestAccount } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { expectProblem } from './support/problems.js';
import { createLink, requestAs, type ApiInit } from './support/api-client.js';

/** Tags on links: create, bulk and update, `GET /api/links?tag=`, `GET /api/tags`. */
type BulkResult = { link?: Link; error?: Problem };
type TagList = { data: Array<{ tag: string; links: number; clicks: number }> };

let testApp: TestApp;
let owner: TestAccount;

beforeAll(async () => {
  testApp = await startTestApp({ RATE_LIMIT_ANONYMOUS: '1000000', RATE_LIMIT_TOKEN: '1000000' });
  owner = await createAccountWithToken(testApp);
});
afterAll(async () => {
  await testApp?.close();
});

const prisma = () => testApp.app.get(PrismaService);

const api = (path: string, init?: ApiInit, account = owner) => requestAs(testApp, account, path, init);
const create = (json: Record<string, unknown>, account = owner) => createLink(testApp, account, json);

async function read(code: string, account = owner): Promise<Link> {
  const response = await api(`/api/links/${code}`, {}, account);
  expect(response.status).toBe(200);
  return (await response.json()) as Link;
}

async function list(query: string, account = owner): Promise<LinkList> {
  const response = await api(`/api/links?${query}`, {}, account);
  expect(response.status).toBe(200);
  return (await response.json()) as LinkList;
}

async function tagsOf(account = owner): Promise<TagList['data']> {
  const response = await api('/api/tags', {}, account);
  expect(response.status).toBe(200);
  return ((await response.json()) as TagList).data;
}

/** Every row of link_tags and account_tags of the account: what a refused call must leave alone. */
async function stored(account = owner) {
  const [tags, counts] = await Promise.all([
    prisma().linkTag.findMany({ where: { accountId: account.accountId }, orderBy: [{ code: 'asc' }, { tag: 'asc' }] }),
    prisma().accountTag.findMany({ where: { accountId: account.accountId }, orderBy: { tag: 'asc' } }),
  ]);
  return { links: await prisma().link.count({ where: { accountId: account.accountId } }), tags, counts };
}

/** The bad `tags` values of the issue, each with what the problem says. */
const BAD_TAGS: Array<[string, unknown, string]> = [
  ['a tag with a space', ['spring sale'], '"spring sale" is not'],
  ['an emoji', ['news', '🙂'], '"🙂" is not'],
  ['33 characters', ['a'.repeat(33)], `"${'a'.repeat(33)}" is not`],
  ['an empty tag', [''], '"" is not'],
  ['an underscore', ['spring_sale'], '"spring_sale" is not'],
  ['11 tags', Array.from({ length: 11 }, (_, i) => `t${i}`), 'at most 10 tags (11 given)'],
  [
    '11 items, two of them the same tag in another case',
    [...Array.from({ length: 10 }, (_, i) => `t${i}`), 'T0'],
    'at most 10 tags',
  ],
  ['null', null, 'must be an array of tags ([] for none)'],
  ['a string', 'news', 'must be an array of tags'],
  ['an object', { news: true }, 'must be an array of tags'],
  ['a number inside', ['news', 1], 'strings only'],
  ['null inside', ['news', null], 'strings only'],
  ['an array inside', [['news']], 'strings only'],
];

describe('tags on POST /api/links', () => {
  it('are stored lower case, each once, sorted, and shown in the link resource', async () => {
    const link = await create({ url: 'https://example.com/tagged', tags: ['Spring-Sale', 'news', 'NEWS', '2026'] });

    expect(link.tags).toEqual(['2026', 'news', 'spring-sale']);
    expect(await read(link.code)).toEqual(link);
    expect((await list('limit=1')).data[0]).toEqual(link);
    const rows = await prisma().linkTag.findMany({ where: { code: link.code }, orderBy: { tag: 'asc' } });
    expect(rows.map((row) => row.tag)).toEqual(['2026', 'news', 'spring-sale']);
    expect(rows.every((row) => row.accountId === owner.accountId)).toBe(true);
  });

  it('are [] on a link without any, and `tags: []` makes one', async () => {
    expect((await create({ url: 'https://example.com/plain' })).tags).toEqual([]);
    expect((await create({ url: 'https://example.com/empty', tags: [] })).tags).toEqual([]);
  });

  it('go with a custom code, and a taken code gives its owner none of them', async () => {
    const other = await createAccountWithToken(testApp);
    const theirs = await create(
      { url: 'https://example.com/theirs', custom_code: 'tags-taken', tags: ['mine'] },
      other,
    );

    const link = await create({ url: 'https://example.com/custom', custom_code: 'tags-custom', tags: ['promo'] });
    expect(link).toMatchObject({ code: 'tags-custom', tags: ['promo'] });
    const before = await stored(other);
    await expectProblem(
      await api('/api/links', {
        method: 'POST',
        json: { url: 'https://example.com/x', custom_code: 'tags-taken', tags: ['stolen'] },
      }),
      409,
      'code_taken',
    );

    expect(await read(theirs.code, other)).toEqual(theirs);
    expect(await stored(other)).toEqual(before);
  });

  it.each(BAD_TAGS)('refuses %s with 400 naming the field, creating nothing', async (_case, tags, message) => {
    const before = await stored();

    const problem = await expectProblem(
      await api('/api/links', { method: 'POST', json: { url: 'https://example.com/bad-tags', tags } }),
      400,
      'validation_failed',
    );

    expect(problem.detail).toContain(message);
    expect(problem.errors).toEqual([{ field: 'tags', message: problem.detail }]);
    expect(await stored()).toEqual(before);
  });

  it('needs a token: an anonymous link cannot be tagged (401), and nothing is created', async () => {
    const before = await prisma().link.count();

    const response = await testApp.request('/api/links', {
      method: 'POST',
      headers: newClient(),
      json: { url: 'https://example.com/anonymous', tags: ['news'] },
    });

    const problem = await expectProblem(response, 401, 'unauthorized');
    expect(problem.detail).toContain('tags need an API token');
    expect(await prisma().link.count()).toBe(before);
  });
});

describe('tags on POST /api/links/bulk', () => {
  it('are per item: each good item is created with its tags, each bad one refused alone, naming its field', async () => {
    const before = await stored();

    const response = await api('/api/links/bulk', {
      method: 'POST',
      json: {
        links: [
          { url: 'https://example.com/bulk-1', tags: ['Bulk', 'news'] },
          { url: 'https://example.com/bulk-2', tags: ['bad tag'] },
          { url: 'https://example.com/bulk-3' },
          { url: 'https://example.com/bulk-4', tags: null },
          { url: 'https://example.com/bulk-5', custom_code: 'tags-custom', tags: ['stolen'] },
          { url: 'https://example.com/bulk-6', custom_code: 'tags-bulk-six', tags: ['bulk'] },
        ],
      },
    });

    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: BulkResult[] };
    expect(data.map((item) => (item.link ? item.link.tags : item.error!.error))).toEqual([
      ['bulk', 'news'],
      'validation_failed',
      [],
      'validation_failed',
      'code_taken',
      ['bulk'],
    ]);
    expect(data[1].error!.errors).toEqual([
      { field: 'links[1].tags', message: expect.stringContaining('"bad tag" is not') },
    ]);
    expect(data[3].error!.errors).toEqual([
      { field: 'links[3].tags', message: 'tags must be an array of tags ([] for none)' },
    ]);
    for (const item of [data[0], data[2], data[5]]) expect(await read(item.link!.code)).toEqual(item.link);
    // Three links more, three tag rows more (bulk ×2, news); the taken code's link kept its tags.
    const after = await stored();
    expect(after.links).toBe(before.links + 3);
    expect(after.tags).toHaveLength(before.tags.length + 3);
    expect((await read('tags-custom')).tags).toEqual(['promo']);
  });

  it('writes tags for hundreds of links in one call, generated codes and all', async () => {
    const account = await createAccountWithToken(testApp);
    const links = Array.from({ length: 600 }, (_, i) => ({
      url: `https://example.com/many/${i}`,
      tags: i % 2 === 0 ? ['even', `group-${i % 3}`] : [],
    }));

    const response = await api('/api/links/bulk', { method: 'POST', json: { links } }, account);

    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: BulkResult[] };
    expect(
      data.every((item, i) => item.link?.url === links[i].url && item.link.tags.join() === links[i].tags.join()),
    ).toBe(true);
    expect(await tagsOf(account)).toEqual([
      { tag: 'even', links: 300, clicks: 0 },
      { tag: 'group-0', links: 100, clicks: 0 },
      { tag: 'group-1', links: 100, clicks: 0 },
      { tag: 'group-2', links: 100, clicks: 0 },
    ]);
    expect((await list('tag=group-1&limit=100')).total).toBe(0); // another account's
    const groupOne = await list('tag=group-1&limit=100', account);
    expect(groupOne.total).toBe(100);
    expect(groupOne.data.every((link) => link.tags.includes('group-1'))).toBe(true);
  }, 30_000);
});

describe('tags on PUT /api/links/{code}', () => {
  let link: Link;
  const put = (json: unknown, code = link.code) => api(`/api/links/${code}`, { method: 'PUT', json });

  beforeEach(async () => {
    link = await create({ url: 'https://example.com/to-change', tags: ['old', 'keep'] });
  });

  it('replaces the tags when given (alone or with other fields), keeps them when left out', async () => {
    const alone = await put({ tags: ['Keep', 'new'] });
    expect(alone.status).toBe(200);
    const changed = (await alone.json()) as Link;
    expect(changed).toMatchObject({ url: 'https://example.com/to-change', tags: ['keep', 'new'] });
    expect(Date.parse(changed.updated_at)).toBeGreaterThanOrEqual(Date.parse(link.updated_at));
    expect(await read(link.code)).toEqual(changed);

    const urlOnly = (await (await put({ url: 'https://example.com/moved' })).json()) as Link;
    expect(urlOnly).toMatchObject({ url: 'https://example.com/moved', tags: ['keep', 'new'] });

    const both = (await (await put({ url: 'https://example.com/both', tags: ['both'] })).json()) as Link;
    expect(both).toMatchObject({ url: 'https://example.com/both', tags: ['both'] });
    expect((await stored()).tags.filter((row) => row.code === link.code).map((row) => row.tag)).toEqual(['both']);
  });

  it('clears them with []', async () => {
    const response = await put({ tags: [] });

    expect(response.status).toBe(200);
    expect(((await response.json()) as Link).tags).toEqual([]);
    expect(await prisma().linkTag.count({ where: { code: link.code } })).toBe(0);
  });

  it.each(BAD_TAGS)('refuses %s with 400 naming the field, changing nothing', async (_case, tags, message) => {
    const before = await stored();

    const problem = await expectProblem(
      await put({ url: 'https://example.com/not-applied', tags }),
      400,
      'validation_failed',
    );

    expect(problem.detail).toContain(message);
    expect(problem.errors).toEqual([{ field: 'tags', message: problem.detail }]);
    expect(await read(link.code)).toEqual(link);
    expect(await stored()).toEqual(before);
  });

  it("answers 404 for another account's link, touching none of its tags", async () => {
    const other = await createAccountWithToken(testApp);
    const theirs = await create({ url: 'https://example.com/not-yours', tags: ['theirs'] }, other);

    await expectProblem(await put({ tags: ['mine'] }, theirs.code), 404, 'not_found');

    expect(await read(theirs.code, other)).toEqual(theirs);
  });

  it('keeps the counts right when many changes of one account run at once', async () => {
    const account = await createAccountWithToken(testApp);
    const links = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        create({ url: `https://example.com/swap/${i}`, tags: i % 2 ? ['a', 'x'] : ['b', 'x'] }, account),
      ),
    );

    // Half trade a for b, half b for a, all at once: two tags' counts changed in opposite orders.
    const responses = await Promise.all(
      links.map((one, i) =>
        api(`/api/links/${one.code}`, { method: 'PUT', json: { tags: i % 2 ? ['b', 'y'] : ['a', 'y'] } }, account),
      ),
    );

    expect(responses.map((response) => response.status)).toEqual(links.map(() => 200));
    expect(await tagsOf(account)).toEqual([
      { tag: 'a', links: 6, clicks: 0 },
      { tag: 'b', links: 6, clicks: 0 },
      { tag: 'y', links: 12, clicks: 0 },
    ]);
    expect((await list('tag=x', account)).total).toBe(0);
    expect((await list('tag=y', account)).total).toBe(12);
  });
});

describe('GET /api/links?tag=', () => {
  let lister: TestAccount;
  /** Codes of the lister's links, newest first. */
  const made: Array<{ code: string; tags: string[] }> = [];
  const codes = (page: LinkList) => page.data.map((link) => link.code);
  const newestFirstWith = (tag: string) =>
    made
      .filter((link) => link.tags.includes(tag))
      .map((link) => link.code)
      .reverse();

  beforeAll(async () => {
    lister = await createAccountWithToken(testApp);
    for (let i = 0; i < 25; i++) {
      const tags = [...(i % 2 === 0 ? ['news'] : []), ...(i % 5 === 0 ? ['five'] : []), 'all'];
      const link = await create(
        { url: `https://example.com/list/${i % 3 === 0 ? 'match' : 'other'}/${i}`, tags },
        lister,
      );
      made.push({ code: link.code, tags });
    }
    // Another account's links with the same tags are never listed.
    const stranger = await createAccountWithToken(testApp);
    await create({ url: 'https://example.com/list/match/stranger', tags: ['news', 'all'] }, stranger);
  });

  it('keeps the links with that tag, newest first, counting them in total', async () => {
    const page = await list('tag=news&limit=100', lister);

    expect(codes(page)).toEqual(newestFirstWith('news'));
    expect(page.total).toBe(13);
    expect(page.data.every((link) => link.tags.includes('news'))).toBe(true);
  });

  it('pages through them with limit and offset, total the same on every page', async () => {
    const pages = [];
    for (let offset = 0; offset < 15; offset += 5) pages.push(await list(`tag=news&limit=5&offset=${offset}`, lister));

    expect(pages.map((page) => page.total)).toEqual([13, 13, 13]);
    expect(pages.map((page) => page.data.length)).toEqual([5, 5, 3]);
    expect(pages.flatMap(codes)).toEqual(newestFirstWith('news'));
    expect(await list('tag=news&limit=5&offset=20', lister)).toEqual({ data: [], total: 13, limit: 5, offset: 20 });
  });

  it('combines with q: links with the tag whose code or URL matches', async () => {
    const both = await list('tag=news&q=MATCH&limit=100', lister);

    const expected = made
      .filter((link, i) => link.tags.includes('news') && i % 3 === 0)
      .map((link) => link.code)
      .reverse();
    expect(codes(both)).toEqual(expected);
    expect(both.total).toBe(expected.length);
    const paged = await list('tag=news&q=match&limit=2&offset=2', lister);
    expect(paged).toMatchObject({ total: expected.length, limit: 2, offset: 2 });
    expect(codes(paged)).toEqual(expected.slice(2, 4));
    expect(await list('tag=five&q=nothing-like-this', lister)).toEqual({ data: [], total: 0, limit: 20, offset: 0 });
  });

  it('matches upper case as lower case, and finds nothing for a tag no link has', async () => {
    expect(codes(await list('tag=FIVE', lister))).toEqual(newestFirstWith('five'));
    expect(await list('tag=unknown-tag', lister)).toEqual({ data: [], total: 0, limit: 20, offset: 0 });
  });

  it.each([
    ['empty', 'tag='],
    ['with a space', 'tag=a%20b'],
    ['too long', `tag=${'a'.repeat(33)}`],
    ['an emoji', `tag=${encodeURIComponent('🙂')}`],
    ['repeated', 'tag=news&tag=five'],
  ])('refuses a tag %s with 400 naming the parameter', async (_case, query) => {
    const problem = await expectProblem(await api(`/api/links?${query}`, {}, lister), 400, 'validation_failed');

    expect(problem.errors).toEqual([{ field: 'tag', message: 'tag must be 1 to 32 letters (a-z), digits or hyphens' }]);
  });
});

describe('GET /api/tags', () => {
  it("lists the account's tags, sorted, with their links and clicks, and no other account's", async () => {
    const account = await createAccountWithToken(testApp);
    const stranger = await createAccountWithToken(testApp);
    await create({ url: 'https://example.com/stranger', tags: ['zeta', 'alpha', 'strangers-only'] }, stranger);
    const one = await create({ url: 'https://example.com/one', tags: ['zeta', 'alpha'] }, account);
    const two = await create({ url: 'https://example.com/two', tags: ['alpha'] }, account);
    await create({ url: 'https://example.com/untagged' }, account);
    for (let i = 0; i < 3; i++) expect((await testApp.request(`/${one.code}`)).status).toBe(302);
    expect((await testApp.request(`/${two.code}`)).status).toBe(302);
    await testApp.app.get(ClickCounter).flush();

    expect(await tagsOf(account)).toEqual([
      { tag: 'alpha', links: 2, clicks: 4 },
      { tag: 'zeta', links: 1, clicks: 3 },
    ]);
    expect(await tagsOf(stranger)).toEqual([
      { tag: 'alpha', links: 1, clicks: 0 },
      { tag: 'strangers-only', links: 1, clicks: 0 },
      { tag: 'zeta', links: 1, clicks: 0 },
    ]);
    expect(await tagsOf(await createAccountWithToken(testApp))).toEqual([]);
  });

  describe('paging', () => {
    type TagPage = TagList & { total: number; limit: number; offset: number };
    let account: TestAccount;
    /** Every tag of the account, in the order the API gives them: by code point ('-' < '0' < 'a'). */
    const names: string[] = [];
    const page = async (query: string): Promise<TagPage> => {
      const response = await api(`/api/tags${query}`, {}, account);
      expect({ query, status: response.status }).toEqual({ query, status: 200 });
      return (await response.json()) as TagPage;
    };

    beforeAll(async () => {
      account = await createAccountWithToken(testApp);
      // 150 tags on 15 links, 10 each, with names whose order differs between collations.
      const tricky = ['a', 'a-b', 'a0', 'ab', 'b-', 'b--a', 'b0', 'ba', 'z-9', 'z9'];
      const all = [...tricky, ...Array.from({ length: 140 }, (_, i) => `t${String(i).padStart(3, '0')}`)];
      const links = Array.from({ length: 15 }, (_, i) => ({
        url: `https://example.com/paged/${i}`,
        tags: all.slice(i * 10, i * 10 + 10),
      }));
      const response = await api('/api/links/bulk', { method: 'POST', json: { links } }, account);
      expect(response.status).toBe(200);
      const created = ((await response.json()) as { data: BulkResult[] }).data.map((result) => result.link!);
      // Clicks on the last link (its tags are on the second page of 100), counted, not folded yet on SQLite.
      for (let i = 0; i < 3; i++) expect((await testApp.request(`/${created[14].code}`)).status).toBe(302);
      await testApp.app.get(ClickCounter).flush();
      names.push(...[...all].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    });

    it('answers the first 100 tags without parameters, with the total, as the links list pages', async () => {
      const first = await page('');

      expect(first).toMatchObject({ total: 150, limit: 100, offset: 0 });
      expect(first.data.map((tag) => tag.tag)).toEqual(names.slice(0, 100));
      expect(first.data[0]).toEqual({ tag: 'a', links: 1, clicks: 0 });
    });

    it('pages with limit and offset, in one order on both databases, each tag once, clicks included', async () => {
      const seen: TagList['data'] = [];
      for (let offset = 0; offset < 150; offset += 40) seen.push(...(await page(`?limit=40&offset=${offset}`)).data);

      expect(seen.map((tag) => tag.tag)).toEqual(names);
      expect(seen.find((tag) => tag.tag === 't139')).toEqual({ tag: 't139', links: 1, clicks: 3 });
      expect((await page('?limit=1000')).data).toHaveLength(150);
      expect(await page('?limit=3&offset=148')).toMatchObject({ total: 150, limit: 3, offset: 148 });
      expect((await page('?limit=3&offset=148')).data.map((tag) => tag.tag)).toEqual(names.slice(148));
      expect(await page('?offset=500')).toEqual({ data: [], total: 150, limit: 100, offset: 500 });
    });

    it.each(['limit=0', 'limit=1001', 'limit=abc', 'limit=1.5', 'offset=-1', 'limit=1&limit=2', 'page=2'])(
      'refuses ?%s with 400 validation_failed',
      async (query) => {
        await expectProblem(await api(`/api/tags?${query}`, {}, account), 400, 'validation_failed');
      },
    );
  });

  it('needs a token with links:read', async () => {
    await expectProblem(await testApp.request('/api/tags'), 401, 'unauthorized');
    await expectProblem(
      await testApp.request('/api/tags', { headers: { 'x-api-key': 'sl_not-a-real-token' } }),
      401,
      'unauthorized',
    );
    const writer = await createAccountWithToken(testApp, ['links:write']);
    await expectProblem(await api('/api/tags', {}, writer), 403, 'forbidden');
  });
});

describe('deleting', () => {
  it("a link deletes its tags: they leave the tag's list and counts", async () => {
    const account = await createAccountWithToken(testApp);
    const gone = await create({ url: 'https://example.com/gone', tags: ['shared', 'only-here'] }, account);
    await create({ url: 'https://example.com/stays', tags: ['shared'] }, account);

    expect((await api(`/api/links/${gone.code}`, { method: 'DELETE' }, account)).status).toBe(204);

    expect(await prisma().linkTag.count({ where: { code: gone.code } })).toBe(0);
    expect(await tagsOf(account)).toEqual([{ tag: 'shared', links: 1, clicks: 0 }]);
    expect((await list('tag=only-here', account)).total).toBe(0);
    expect((await list('tag=shared', account)).total).toBe(1);
  });

  it("an account deletes its links' tags and counts", async () => {
    const account = await createAccountWithToken(testApp);
    await create({ url: 'https://example.com/leaving', tags: ['farewell'] }, account);

    await testApp.app.get(AccountsService).delete(account.accountId);

    expect(await stored(account)).toEqual({ links: 0, tags: [], counts: [] });
  });
});
