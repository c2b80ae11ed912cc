import {
  emptyDay,
  DIRECT,
  MAX_HOSTS_PER_DAY,
  OTHER_HOSTS,
  addReferrer,
  nextUtcMidnight,
  referrerHost,
  utcDay,
  type DayTally,
} from './click-tally.js';

describe('referrerHost', () => {
  it.each([
    ['https://news.example/story?id=1', 'news.example'],
    ['https://News.Example', 'news.example'],
    ['http://news.example:8080/x', 'news.example'],
    ['https://user:secret@blog.example/post', 'blog.example'],
    ['https://a.example?q=1', 'a.example'],
    ['https://a.example#top', 'a.example'],
    ['android-app://com.google.android.gm/', 'com.google.android.gm'],
    ['https://192.0.2.1/page', '192.0.2.1'],
  ])('%s → %s', (referer, host) => {
    expect(referrerHost(referer)).toBe(host);
  });

  it.each([
    undefined,
    '',
    'news.example',
    '/relative/path',
    'https://',
    'https:///x',
    'https://bad_host!/',
    'https://[::1]/',
  ])('counts %p as direct', (referer) => {
    expect(referrerHost(referer)).toBe(DIRECT);
  });

  it('refuses host names longer than DNS allows', () => {
    expect(referrerHost(`https://${'a'.repeat(254)}/`)).toBe(DIRECT);
  });
});

describe('UTC days', () => {
  it('names the UTC day and finds the next midnight', () => {
    const late = Date.parse('2026-11-24T23:59:59.999Z');
    expect(utcDay(late)).toBe('2026-11-24');
    expect(nextUtcMidnight(late)).toBe(Date.parse('2026-11-25T00:00:00.000Z'));
    expect(utcDay(nextUtcMidnight(late))).toBe('2026-11-25');
  });
});

describe('addReferrer', () => {
  it(`keeps ${MAX_HOSTS_PER_DAY} hosts per day and counts the rest under ${OTHER_HOSTS}`, () => {
    const tally: DayTally = emptyDay();
    for (let i = 0; i < MAX_HOSTS_PER_DAY + 5; i++) addReferrer(tally, `h${i}.example`, 1);
    addReferrer(tally, 'h0.example', 2);

    expect(tally.referrers.size).toBe(MAX_HOSTS_PER_DAY + 1);
    expect(tally.referrers.get('h0.example')).toBe(3);
    expect(tally.referrers.get(OTHER_HOSTS)).toBe(5);
  });
});
