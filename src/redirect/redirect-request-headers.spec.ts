import { redirectHeadersOf } from './redirect-request-headers.js';

describe('redirectHeadersOf', () => {
  it('finds the Referer, User-Agent, X-Forwarded-For and X-Request-Id in any case, the first of each, skipping the rest', () => {
    const sut = redirectHeadersOf([
      'Host', 'sl.test',
      'USER-AGENT', 'Mozilla/5.0 first',
      'Referer', 'https://news.example/a',
      'X-Forwarded-For', '193.0.6.139, 10.0.0.1',
      'x-Request-ID', 'req-1',
      'x-forwarded-for', '8.8.8.8',
      'user-agent', 'second',
      'referrer', 'misspelt, not read',
      'Accept', '*/*',
    ]); // prettier-ignore

    expect(sut).toEqual({
      userAgent: 'Mozilla/5.0 first',
      referer: 'https://news.example/a',
      forwardedFor: '193.0.6.139, 10.0.0.1',
      requestId: 'req-1',
    });
  });

  it('leaves out what the request does not send', () => {
    expect(redirectHeadersOf(['Host', 'sl.test'])).toEqual({});
    expect(redirectHeadersOf([])).toEqual({});
  });
});
