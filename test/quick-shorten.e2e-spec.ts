import { createAccountWithToken } from './support/factories.js';
import { startTestApp, TEST_SHORT_BASE_URL, type TestApp } from './support/test-app.js';

const SHORT_URL = new RegExp(`^${TEST_SHORT_BASE_URL.replace(/\./g, '\\.')}/[0-9A-Za-z]{7}$`);

describe('GET /api/s?url=', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp({ RATE_LIMIT_ANONYMOUS: '1000000', RATE_LIMIT_TOKEN: '1000000' });
  });
  afterAll(() => testApp.close());

  const shorten = (query: string, headers: Record<string, string> = {}) =>
    testApp.request(`/api/s?${query}`, { headers });

  async function expectPlainError(response: Response, status: number, error: string): Promise<void> {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await response.text()).toBe(`error: ${error}`);
  }

  it('answers 200 text/plain with the short URL alone', async () => {
    const response = await shorten(`url=${encodeURIComponent('https://example.com/a?b=1&c=2')}`);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const body = await response.text();
    expect(body).toMatch(SHORT_URL);

    const code = body.slice(TEST_SHORT_BASE_URL.length + 1);
    const redirect = await testApp.request(`/${code}`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('https://example.com/a?b=1&c=2');
  });

  it('stores the normalised URL, trimmed', async () => {
    const body = await (await shorten(`url=${encodeURIComponent('  HTTPS://Example.com  ')}`)).text();

    const redirect = await testApp.request(`/${body.split('/').pop()}`);
    expect(redirect.headers.get('location')).toBe('https://example.com/');
  });

  it('creates a new code each time', async () => {
    const first = await (await shorten('url=https%3A%2F%2Fexample.com%2F')).text();
    const second = await (await shorten('url=https%3A%2F%2Fexample.com%2F')).text();

    expect(first).not.toBe(second);
  });

  it('creates anonymous links even when a token is sent (valid or not)', async () => {
    const owner = await createAccountWithToken(testApp);

    const withValid = await shorten('url=https%3A%2F%2Fexample.com%2Fvalid', owner.apiKey);
    const withInvalid = await shorten('url=https%3A%2F%2Fexample.com%2Finvalid', { authorization: 'Bearer nonsense' });

    expect(withValid.status).toBe(200);
    expect(withInvalid.status).toBe(200);
    const list = (await (await testApp.request('/api/links', { headers: owner.bearer })).json()) as { total: number };
    expect(list.total).toBe(0);
  });

  it.each([
    ['no url parameter', ''],
    ['an empty url', 'url='],
    ['only spaces', 'url=%20%20'],
    ['a relative URL', 'url=%2Fpath'],
    ['javascript:', `url=${encodeURIComponent('javascript:alert(1)')}`],
    ['data:', `url=${encodeURIComponent('data:text/html,hi')}`],
    ['ftp:', `url=${encodeURIComponent('ftp://example.com/')}`],
    ['user info', `url=${encodeURIComponent('https://bank.example@evil.example/')}`],
    ['a tab inside', `url=${encodeURIComponent('https://example.com/a\tb')}`],
    ['a space inside', `url=${encodeURIComponent('https://example.com/a b')}`],
    ['the short domain', `url=${encodeURIComponent(`${TEST_SHORT_BASE_URL}/abc`)}`],
    ['8193 characters', `url=${encodeURIComponent(`https://example.com/${'a'.repeat(8193 - 20)}`)}`],
    ['a repeated url parameter', 'url=https%3A%2F%2Fa.example%2F&url=https%3A%2F%2Fb.example%2F'],
    ['a broken percent-encoding', 'url=%'],
    ['a bracketed parameter', 'url[]=https%3A%2F%2Fa.example%2F'],
    ['the wrong parameter name', 'URL=https%3A%2F%2Fa.example%2F'],
  ])('answers 400 "error: invalid_url" for %s', async (_label, query) => {
    await expectPlainError(await shorten(query), 400, 'invalid_url');
  });

  it('ignores other parameters', async () => {
    const response = await shorten('url=https%3A%2F%2Fexample.com%2F&utm_source=x');

    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(SHORT_URL);
  });
});
