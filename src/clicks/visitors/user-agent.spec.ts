import { randomBytes } from 'node:crypto';
import {
  BROWSER_LABELS,
  MAX_USER_AGENT_LENGTH,
  OS_LABELS,
  OTHER,
  UserAgentClassifier,
  classifyUserAgent,
} from './user-agent.js';

const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe('UserAgentClassifier', () => {
  let sut: UserAgentClassifier;

  beforeEach(() => {
    sut = new UserAgentClassifier();
  });

  describe('people', () => {
    it.each([
      ['Chrome on Windows', CHROME_WINDOWS, 'desktop', 'Chrome', 'Windows'],
      [
        'Safari on macOS',
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15',
        'desktop',
        'Safari',
        'macOS',
      ],
      [
        'Firefox on Linux',
        'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
        'desktop',
        'Firefox',
        'Linux',
      ],
      [
        'Firefox on Ubuntu',
        'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
        'desktop',
        'Firefox',
        'Linux',
      ],
      [
        'Safari on an iPhone',
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
        'mobile',
        'Safari',
        'iOS',
      ],
      [
        'Chrome on an iPhone',
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
        'mobile',
        'Chrome',
        'iOS',
      ],
      [
        'Chrome on an Android phone',
        'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
        'mobile',
        'Chrome',
        'Android',
      ],
      [
        'Safari on an iPad',
        'Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.7 Mobile/15E148 Safari/604.1',
        'tablet',
        'Safari',
        'iOS',
      ],
      [
        'Chrome on an Android tablet',
        'Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
        'tablet',
        'Chrome',
        'Android',
      ],
      ['Edge on Windows', `${CHROME_WINDOWS} Edg/131.0.0.0`, 'desktop', 'Microsoft Edge', 'Windows'],
      [
        'Samsung Internet on Android',
        'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
        'mobile',
        'Samsung Internet for Android',
        'Android',
      ],
      ['Opera on Windows', `${CHROME_WINDOWS} OPR/116.0.0.0`, 'desktop', 'Opera', 'Windows'],
      [
        'Chrome on ChromeOS',
        'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
        'desktop',
        'Chrome',
        'Chrome OS',
      ],
      [
        'the Facebook app on an iPhone',
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/440.0.0.33.118;FBDV/iPhone14,5;FBMD/iPhone;FBSN/iOS;FBSV/17.1]',
        'mobile',
        'Safari',
        'iOS',
      ],
      [
        'a Samsung smart TV',
        'Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0.3809.146 TV Safari/537.36',
        'other',
        'Samsung Internet for Android',
        'Tizen',
      ],
    ])('%s', (_name, userAgent, device, browser, os) => {
      expect(sut.classify(userAgent)).toEqual({ bot: false, device, browser, os });
    });

    it('takes an iPad asking for desktop sites (the default since iPadOS 13) for a Mac, as its header says', () => {
      const ipadAsMac =
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15';
      expect(sut.classify(ipadAsMac)).toEqual({ bot: false, device: 'desktop', browser: 'Safari', os: 'macOS' });
    });

    it('labels what bowser does not know Other', () => {
      expect(sut.classify('Mozilla/5.0 (compatible; SomeReader/2.1)')).toMatchObject({
        device: 'other',
        browser: OTHER,
        os: OTHER,
      });
    });
  });

  describe('bots', () => {
    it.each([undefined, '', ' ', '\t'])('counts a missing or blank user agent (%p) as a bot', (userAgent) => {
      expect(sut.classify(userAgent)).toEqual({ bot: true, device: 'other', browser: OTHER, os: OTHER });
    });

    it.each([
      // Link-preview fetchers.
      ['Slack', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)'],
      ['Slack images', 'Slackbot 1.0 (+https://api.slack.com/robots)'],
      ['WhatsApp (Android)', 'WhatsApp/2.23.20.0 A'],
      ['WhatsApp (iOS)', 'WhatsApp/2.23.18.78 i'],
      ['Discord', 'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)'],
      [
        'Discord (as Firefox)',
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 11.6; rv:92.0) Gecko/20100101 Firefox/92.0 Discordbot/2.0',
      ],
      ['X', 'Twitterbot/1.0'],
      ['LinkedIn', 'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)'],
      ['Facebook', 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)'],
      ['Telegram', 'TelegramBot (like TwitterBot)'],
      [
        'iMessage',
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0',
      ],
      ['Microsoft Teams', `${CHROME_WINDOWS} Teams/1.6 MicrosoftPreview/2.0 +https://aka.ms/MicrosoftPreview`],
      ['Skype', 'Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5'],
      ['Bluesky', 'Mozilla/5.0 (compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app)'],
      ['Mastodon', 'http.rb/5.1.1 (Mastodon/4.2.1; +https://mastodon.social/)'],
      // Crawlers.
      ['Googlebot', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'],
      ['Bingbot', 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)'],
      // Uptime monitors.
      ['UptimeRobot', 'Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)'],
      ['Pingdom', 'Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)'],
      ['StatusCake', `${CHROME_WINDOWS} StatusCake`],
      ['Uptime Kuma', 'Uptime-Kuma/1.23.0'],
      ['Datadog', 'Datadog/Synthetics'],
      ['Kubernetes probe', 'kube-probe/1.28'],
      ['AWS load balancer', 'ELB-HealthChecker/2.0'],
      // Headless browsers.
      [
        'HeadlessChrome',
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.6099.28 Safari/537.36',
      ],
      [
        'PhantomJS',
        'Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1',
      ],
      ['Lighthouse', `${CHROME_WINDOWS} Chrome-Lighthouse`],
      // Scripts and HTTP libraries.
      ['curl', 'curl/8.5.0'],
      ['Wget', 'Wget/1.21.4'],
      ['Node.js fetch', 'node'],
      ['undici', 'undici'],
      ['node-fetch', 'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)'],
      ['axios', 'axios/1.6.2'],
      ['got', 'got (https://github.com/sindresorhus/got)'],
      ['python-requests', 'python-requests/2.31.0'],
      ['Python urllib', 'Python-urllib/3.11'],
      ['httpx', 'python-httpx/0.27.0'],
      ['aiohttp', 'Python/3.11 aiohttp/3.9.1'],
      ['Go', 'Go-http-client/1.1'],
      ['Go (HTTP/2)', 'Go-http-client/2.0'],
      ['OkHttp', 'okhttp/4.12.0'],
      ['Java', 'Java-http-client/17.0.2'],
      ['Apache HttpClient', 'Apache-HttpClient/4.5.14 (Java/17.0.2)'],
      ['Guzzle', 'GuzzleHttp/7'],
      ['Ruby', 'Ruby'],
      ['Perl', 'libwww-perl/6.72'],
      ['Deno', 'Deno/1.39.0'],
      ['Bun', 'Bun/1.0.20'],
      ['reqwest', 'reqwest/0.11'],
      ['Postman', 'PostmanRuntime/7.36.0'],
      ['HTTPie', 'HTTPie/3.2.2'],
      ['Scrapy', 'Scrapy/2.11.0 (+https://scrapy.org)'],
      // Not in isbot's list: the extra pattern.
      ['Dart', 'Dart/3.2 (dart:io)'],
    ])('%s', (_name, userAgent) => {
      expect(sut.classify(userAgent).bot).toBe(true);
    });

    it('gives a bot no device, browser or system', () => {
      expect(sut.classify('curl/8.5.0')).toEqual({ bot: true, device: 'other', browser: OTHER, os: OTHER });
    });
  });

  describe('hostile headers', () => {
    it('parses only the first characters of a very long header and keys the cache by them', () => {
      const long = CHROME_WINDOWS + ' '.repeat(10_000) + 'Googlebot/2.1';
      const first = sut.classify(long);
      expect(first).toEqual({ bot: false, device: 'desktop', browser: 'Chrome', os: 'Windows' });
      expect(sut.classify(CHROME_WINDOWS + ' '.repeat(MAX_USER_AGENT_LENGTH))).toBe(first);
      expect(sut.cacheSize).toBe(1);
    });

    it('survives control characters, non-ASCII text and 10 KB of random bytes', () => {
      const inputs = [
        '\u0000\u0001Café/1 (x)',
        `${CHROME_WINDOWS}\r\n\u0000`,
        '\u202eevil/1 (x)',
        randomBytes(10_240).toString('latin1'),
        'A'.repeat(10_240),
        '/'.repeat(10_240) + ' (',
      ];
      for (const userAgent of inputs) {
        const result = sut.classify(userAgent);
        expect(BROWSER_LABELS.has(result.browser) || result.browser === OTHER).toBe(true);
        expect(OS_LABELS.has(result.os) || result.os === OTHER).toBe(true);
      }
      // bowser names an unknown client by its header's first token; that name is no label.
      expect(sut.classify('\u0000\u0001Café/1 (x)').browser).toBe(OTHER);
    });

    // The invented clients are the same every run: random ones now and then spell a real name
    // (an "Opr" in a token is Opera), which is a label of the vocabulary but not of this count.
    it('gives 1,000 invented clients no more labels than its vocabulary, and holds no more than its capacity', () => {
      sut = new UserAgentClassifier(100);
      const browsers = new Set<string>();
      const systems = new Set<string>();
      for (let i = 0; i < 1000; i++) {
        const token = inventedBytes(2 * i, 12).toString('base64url');
        for (const userAgent of [
          `${token}/1.0 (Windows NT 10.0)`,
          `Mozilla/5.0 (${token}) ${token}/${i}`,
          `${token} ${CHROME_WINDOWS}`,
          inventedBytes(2 * i + 1, 64).toString('latin1'),
        ]) {
          const result = sut.classify(userAgent);
          browsers.add(result.browser);
          systems.add(result.os);
          expect(sut.cacheSize).toBeLessThanOrEqual(100);
        }
      }
      for (const browser of browsers) expect(BROWSER_LABELS.has(browser) || browser === OTHER).toBe(true);
      for (const os of systems) expect(OS_LABELS.has(os) || os === OTHER).toBe(true);
      expect(browsers.size).toBeLessThanOrEqual(3);
      expect(sut.cacheSize).toBe(100);
    });

    it('has a small vocabulary of printable labels', () => {
      expect(BROWSER_LABELS.size).toBeLessThan(100);
      expect(OS_LABELS.size).toBeLessThan(20);
      for (const name of [...BROWSER_LABELS, ...OS_LABELS]) expect(name).toMatch(/^[\x20-\x7e]{1,40}$/);
    });
  });

  describe('cache', () => {
    it('answers a user agent seen before from the cache', () => {
      expect(sut.classify(CHROME_WINDOWS)).toBe(sut.classify(CHROME_WINDOWS));
      expect(sut.cacheSize).toBe(1);
    });

    it('classifies 10,000 cached user agents in far less than a millisecond each', () => {
      const userAgents = Array.from({ length: 100 }, (_, i) => `${CHROME_WINDOWS} Extra/${i}`);
      for (const userAgent of userAgents) sut.classify(userAgent);
      const started = performance.now();
      for (let i = 0; i < 10_000; i++) sut.classify(userAgents[i % 100]);
      // About 1 ms on an idle laptop; the bound leaves room for a loaded CI machine.
      expect(performance.now() - started).toBeLessThan(500);
    });
  });

  it('has a process-wide instance', () => {
    expect(classifyUserAgent(CHROME_WINDOWS)).toBe(classifyUserAgent(CHROME_WINDOWS));
    expect(classifyUserAgent(undefined).bot).toBe(true);
  });
});

/** `length` bytes that depend only on `seed` (mulberry32): invented input, the same every run. */
function inventedBytes(seed: number, length: number): Buffer {
  let state = (seed * 0x9e3779b9) >>> 0;
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    bytes[i] = (t ^ (t >>> 14)) >>> 24;
  }
  return bytes;
}
