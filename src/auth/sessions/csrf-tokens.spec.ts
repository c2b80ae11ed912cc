import { jest } from '@jest/globals';
import { Tokens } from '@fastify/csrf';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../../config/app-config.js';
import { CSRF_TOKEN_LIFETIME_MS, CsrfTokens } from './csrf-tokens.js';
import { DashboardCookies } from './dashboard-cookies.js';

const SESSION = '__Host-shortlink_session';
const CSRF = '__Host-shortlink_csrf';

function request(cookies: Record<string, string>, csrf?: string): FastifyRequest {
  return { cookies, body: csrf === undefined ? {} : { _csrf: csrf } } as unknown as FastifyRequest;
}

/** A reply that keeps the cookies set on it. */
function reply(): FastifyReply & { set: Record<string, string> } {
  const set: Record<string, string> = {};
  return {
    set,
    setCookie(name: string, value: string) {
      set[name] = value;
      return this;
    },
  } as unknown as FastifyReply & { set: Record<string, string> };
}

describe('CsrfTokens', () => {
  const cookies = new DashboardCookies({ shortBaseUrl: 'https://sl.test' } as AppConfig);
  const sut = new CsrfTokens(cookies);
  const sessionA = 'a'.repeat(43);
  const sessionB = 'b'.repeat(43);

  afterEach(() => jest.restoreAllMocks());

  it('accepts a signed-in form only with the session it was shown to', () => {
    const token = sut.issue(request({ [SESSION]: sessionA }), reply(), true);

    expect(sut.valid(request({ [SESSION]: sessionA }, token), true)).toBe(true);
    expect(sut.valid(request({ [SESSION]: sessionB }, token), true)).toBe(false);
    expect(sut.valid(request({}, token), true)).toBe(false);
  });

  it('refuses a token made from a planted CSRF cookie on a signed-in form', () => {
    // The attacker's own secret and a valid token for it, both known to the attacker.
    const tokens = new Tokens({});
    const planted = tokens.secretSync();
    const forged = tokens.create(planted);

    expect(sut.valid(request({ [SESSION]: sessionA, [CSRF]: planted }, forged), true)).toBe(false);
  });

  it('binds a signed-out form to the browser’s CSRF cookie, set on first use', () => {
    const first = reply();
    const token = sut.issue(request({}), first, false);
    const secret = first.set[CSRF];

    expect(secret).toMatch(/^[\w-]{16,64}$/);
    expect(sut.valid(request({ [CSRF]: secret }, token), false)).toBe(true);
    expect(sut.valid(request({ [CSRF]: new Tokens({}).secretSync() }, token), false)).toBe(false);
    expect(sut.valid(request({}, token), false)).toBe(false);
  });

  it('keeps a signed-out token out of signed-in forms and the other way round', () => {
    const jar = reply();
    const signedOut = sut.issue(request({}), jar, false);
    const browser = { [SESSION]: sessionA, [CSRF]: jar.set[CSRF] };
    const signedIn = sut.issue(request(browser), reply(), true);

    expect(sut.valid(request(browser, signedOut), true)).toBe(false);
    expect(sut.valid(request(browser, signedIn), false)).toBe(false);
  });

  it('refuses a token older than its lifetime', () => {
    const now = Date.now();
    const token = sut.issue(request({ [SESSION]: sessionA }), reply(), true);

    jest.spyOn(Date, 'now').mockReturnValue(now + CSRF_TOKEN_LIFETIME_MS - 60_000);
    expect(sut.valid(request({ [SESSION]: sessionA }, token), true)).toBe(true);
    jest.spyOn(Date, 'now').mockReturnValue(now + CSRF_TOKEN_LIFETIME_MS + 1_000);
    expect(sut.valid(request({ [SESSION]: sessionA }, token), true)).toBe(false);
  });

  it.each([undefined, '', 'forged', ['a', 'b']])('refuses a missing or malformed token (%j)', (token) => {
    const req = { cookies: { [SESSION]: sessionA }, body: { _csrf: token } } as unknown as FastifyRequest;

    expect(sut.valid(req, true)).toBe(false);
  });

  it('names the cookies without the __Host- prefix on plain http', () => {
    const plain = new DashboardCookies({ shortBaseUrl: 'http://localhost:3000' } as AppConfig);

    expect(plain.name('session')).toBe('shortlink_session');
    expect(cookies.name('session')).toBe(SESSION);
    expect(cookies.name('device')).toBe('__Host-shortlink_device');
  });
});
