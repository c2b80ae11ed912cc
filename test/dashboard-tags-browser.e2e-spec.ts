// Tags in the dashboard as a person uses them: Chromium (Debian's, through playwright-core) edits
// a link's tags on its page and filters the links list by a tag, by mouse, by keyboard and with
// script off; axe-core checks the pages at desktop and phone sizes, and the run leaves
// screenshots in .cache/screenshots/ (tags-*.png).
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { PrismaService } from '../src/database/prisma.service.js';
import { LinksService } from '../src/links/links.service.js';
import { launchChromium } from './support/browser/chromium.js';
import { newPersonPage, SIZES } from './support/browser/pages.js';
import { focusedControl, tabThrough, violationsOnPages, walkedCleanly } from './support/browser/page-checks.js';
import { startTestApp, TEST_SHORT_BASE_URL, type TestApp } from './support/test-app.js';
import { newEmail, signUpInPage } from './support/people.js';

describe('Tags in the dashboard, in a browser', () => {
  let testApp: TestApp;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  /** A fresh browser profile on the test app: a person of their own, from an address of their own. */
  const newPage = (options?: BrowserContextOptions) => newPersonPage(browser, testApp.baseUrl, contexts, options);

  /** Signs up a new person; returns their account's id. */
  async function signUp(page: Page): Promise<string> {
    const email = await signUpInPage(page, newEmail('t'));
    const account = await testApp.app.get(PrismaService).account.findUniqueOrThrow({ where: { email } });
    return account.id;
  }

  /**
   * `count` links of the account, made through the service as the API would make them (the
   * dashboard's create form has no tags field): link i is tagged `all`, and `news` when i is a
   * multiple of 3; its URL has `even` or `odd` in it. Returns their codes by i.
   */
  async function makeLinks(accountId: string, count: number): Promise<string[]> {
    const links = [];
    for (let i = 0; i < count; i++) {
      const tags = i % 3 === 0 ? ['news', 'all'] : ['all'];
      links.push(
        await testApp.app.get(LinksService).create(accountId, {
          url: `https://example.com/${i % 2 === 0 ? 'even' : 'odd'}/${i}`,
          tags,
        }),
      );
    }
    createdAt = new Map([...createdAt, ...links.map((link): [string, string] => [link.code, link.created_at])]);
    return links.map((link) => link.code);
  }

  /** When each link made by `makeLinks` was created. */
  let createdAt = new Map<string, string>();
  /** `codes` in the list's order: newest first, then by code (links made in the same millisecond). */
  const newestFirst = (codes: string[]) =>
    [...codes].sort((a, b) => createdAt.get(b)!.localeCompare(createdAt.get(a)!) || (a < b ? -1 : a > b ? 1 : 0));

  const tagsOf = async (accountId: string, code: string) =>
    (await testApp.app.get(LinksService).get(accountId, code)).tags;

  /** The short URLs the links list shows, top to bottom. */
  const listedCodes = async (page: Page) =>
    (await page.getByRole('link', { name: new RegExp(`^${TEST_SHORT_BASE_URL}/`) }).allTextContents()).map((url) =>
      url.slice(TEST_SHORT_BASE_URL.length + 1),
    );

  beforeAll(async () => {
    testApp = await startTestApp({ RATE_LIMIT_ANONYMOUS: '1000000', RATE_LIMIT_TOKEN: '1000000', TRUST_PROXY: 'true' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await testApp?.close();
  });

  it("edits a link's tags on its page: saved folded to lower case, refused with the reason next to the field", async () => {
    const page = await newPage();
    const accountId = await signUp(page);
    const [code] = await makeLinks(accountId, 1);

    await page.goto(`/dashboard/links/${code}`);
    const field = page.getByRole('textbox', { name: 'Tags' });
    await expect(field.inputValue()).resolves.toBe('all news');
    await field.fill('News, Promo  spring-sale');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`**/dashboard/links/${code}?saved=1`);

    await expect(page.getByText('Saved.').isVisible()).resolves.toBe(true);
    expect(await tagsOf(accountId, code)).toEqual(['news', 'promo', 'spring-sale']);
    await expect(page.getByRole('textbox', { name: 'Tags' }).inputValue()).resolves.toBe('news promo spring-sale');
    await expect(
      page
        .getByRole('list', { name: `Tags of ${code}` })
        .getByRole('listitem')
        .allTextContents(),
    ).resolves.toEqual(['Links tagged news', 'Links tagged promo', 'Links tagged spring-sale']);

    await page.getByRole('textbox', { name: 'Tags' }).fill('ok spring_sale');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(
      page
        .getByText('The tags must each be 1 to 32 letters (a-z), digits or hyphens: "spring_sale" is not.')
        .isVisible(),
    ).resolves.toBe(true);
    await expect(page.getByRole('textbox', { name: 'Tags' }).inputValue()).resolves.toBe('ok spring_sale');
    await expect(page.getByRole('textbox', { name: 'Tags' }).getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await tagsOf(accountId, code)).toEqual(['news', 'promo', 'spring-sale']);

    // An empty field removes them all.
    await page.getByRole('textbox', { name: 'Tags' }).fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`**/dashboard/links/${code}?saved=1`);
    expect(await tagsOf(accountId, code)).toEqual([]);
    await expect(page.getByRole('list', { name: `Tags of ${code}` }).count()).resolves.toBe(0);
  });

  it('filters the links list by a tag from any row, keeps the filter in the pages and the search, and shows all again', async () => {
    const page = await newPage();
    const accountId = await signUp(page);
    // 45 links, 15 of them tagged news: the unfiltered list has 3 pages, the news list 1.
    const codes = await makeLinks(accountId, 45);
    const news = newestFirst(codes.filter((_, i) => i % 3 === 0));
    const all = newestFirst(codes);

    await page.goto('/dashboard');
    await page.getByRole('link', { name: 'Links tagged all' }).first().click();
    await page.waitForURL('**/dashboard?tag=all');
    await expect(page.getByText('45 links tagged “all”.').isVisible()).resolves.toBe(true);
    expect(await listedCodes(page)).toEqual(all.slice(0, 20));
    // The next page keeps the filter.
    await page.getByRole('link', { name: 'Older →' }).click();
    await page.waitForURL('**/dashboard?page=2&tag=all');
    expect(await listedCodes(page)).toEqual(all.slice(20, 40));
    await page.getByRole('link', { name: 'Older →' }).click();
    expect(await listedCodes(page)).toEqual(all.slice(40));

    // Another tag, from a row of this page.
    await page.getByRole('link', { name: 'Links tagged news' }).first().click();
    await page.waitForURL('**/dashboard?tag=news');
    await expect(page.getByText('15 links tagged “news”.').isVisible()).resolves.toBe(true);
    expect(await listedCodes(page)).toEqual(news);
    await expect(page.getByRole('navigation', { name: 'Pages' }).count()).resolves.toBe(0);

    // A search from here searches the tag's links.
    await page.getByLabel('Search your links').fill('EVEN');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL('**/dashboard?q=EVEN&tag=news');
    const evenNews = newestFirst(codes.filter((_, i) => i % 3 === 0 && i % 2 === 0));
    await expect(page.getByText(`${evenNews.length} links tagged “news” match “EVEN”.`).isVisible()).resolves.toBe(
      true,
    );
    expect(await listedCodes(page)).toEqual(evenNews);

    await page.getByRole('link', { name: 'Show all links' }).click();
    await page.waitForURL('**/dashboard');
    await expect(page.getByText('45 links, newest first.').isVisible()).resolves.toBe(true);

    // A tag no link has, and something that is no tag.
    await page.goto('/dashboard?tag=nothing-here');
    await expect(page.getByText('None of your links has the tag “nothing-here”.').isVisible()).resolves.toBe(true);
    await page.goto('/dashboard?tag=not%20a%20tag');
    await expect(page.getByText('That is not a tag: showing all links.').isVisible()).resolves.toBe(true);
    expect(await listedCodes(page)).toEqual(all.slice(0, 20));
  });

  it('works by keyboard: a tag is reached with Tab and followed with Enter; every control has a focus ring', async () => {
    const page = await newPage();
    const accountId = await signUp(page);
    const [code] = await makeLinks(accountId, 1);

    for (const path of ['/dashboard', '/dashboard?tag=news', `/dashboard/links/${code}`]) {
      expect(await tabThrough(page, path)).toEqual(walkedCleanly(path));
    }

    await page.goto('/dashboard');
    let focused = '';
    for (let step = 0; step < 40 && focused !== 'a "Links tagged news"'; step++) {
      await page.keyboard.press('Tab');
      focused = (await focusedControl(page))?.name ?? '';
    }
    expect(focused).toBe('a "Links tagged news"');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/dashboard?tag=news');

    // On the link page: the Tags field, typed into, saved with Enter.
    await page.goto(`/dashboard/links/${code}`);
    await page.getByRole('textbox', { name: 'Tags' }).focus();
    await page.keyboard.press('End');
    await page.keyboard.type(' Keyboard');
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/dashboard/links/${code}?saved=1`);
    expect(await tagsOf(accountId, code)).toEqual(['all', 'keyboard', 'news']);
  });

  it('works with JavaScript turned off: editing tags and filtering by one', async () => {
    const page = await newPage({ javaScriptEnabled: false });
    const accountId = await signUp(page);
    const codes = await makeLinks(accountId, 3);

    await page.goto(`/dashboard/links/${codes[1]}`);
    await page.getByRole('textbox', { name: 'Tags' }).fill('no-script all');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`**/dashboard/links/${codes[1]}?saved=1`);
    expect(await tagsOf(accountId, codes[1])).toEqual(['all', 'no-script']);

    await page.getByRole('link', { name: 'Links tagged no-script' }).click();
    await page.waitForURL('**/dashboard?tag=no-script');
    await expect(page.getByText('1 link tagged “no-script”.').isVisible()).resolves.toBe(true);
    expect(await listedCodes(page)).toEqual([codes[1]]);
  });

  describe.each(SIZES)('the tag pages at %s size', (size, viewport) => {
    it('have no serious or critical axe-core violations, and leave screenshots', async () => {
      // The CSP (rightly) refuses inline script; axe is injected as one, so only this context bypasses it.
      const page = await newPage({ viewport, bypassCSP: true });
      const { found, check } = violationsOnPages(page, size);

      const accountId = await signUp(page);
      const codes = await makeLinks(accountId, 4);
      await testApp.app.get(LinksService).update(accountId, codes[3], {
        tags: ['news', 'spring-sale', 'product-launch-2026', 'q4'],
      });
      await page.goto('/dashboard');
      await check('tags-links');
      await page.getByRole('link', { name: 'Links tagged news' }).first().click();
      await page.waitForURL('**/dashboard?tag=news');
      await check('tags-links-filtered');
      await page.goto(`/dashboard/links/${codes[3]}`);
      await check('tags-link');
      await page.getByRole('textbox', { name: 'Tags' }).fill('fine not_fine');
      await page.getByRole('button', { name: 'Save' }).click();
      await check('tags-link-refused');

      expect(found).toEqual(Object.fromEntries(Object.keys(found).map((name) => [name, []])));
    });
  });
});
