import { hashToken } from '../auth/token-secret.js';
import { rateLimitBucket, type RouteFacts } from './rate-limit.policy.js';

const limits = { windowSeconds: 60, anonymous: 5, token: 50 };
const token = `sl_${'a'.repeat(40)}`;

const quickShorten: RouteFacts = { path: '/api/s', anonymousCreation: true, auth: 'public' };
const createLink: RouteFacts = { path: '/api/links', anonymousCreation: true, auth: 'optional' };
const getLink: RouteFacts = { path: '/api/links/:code', anonymousCreation: false, auth: 'required' };
const redirect: RouteFacts = { path: '/:code', anonymousCreation: false, auth: 'public' };

describe('rateLimitBucket', () => {
  it('charges anonymous creating calls to the client IP with the anonymous limit', () => {
    expect(rateLimitBucket(quickShorten, {}, limits)).toEqual({ kind: 'anonymous', limit: 5 });
    expect(rateLimitBucket(createLink, {}, limits)).toEqual({ kind: 'anonymous', limit: 5 });
  });

  it('ignores token headers on the public quick-shorten route (it always creates anonymous links)', () => {
    expect(rateLimitBucket(quickShorten, { 'x-api-key': token }, limits)).toEqual({ kind: 'anonymous', limit: 5 });
  });

  it('charges token calls on /api/* to the token hash, whichever header carries it', () => {
    const expected = { kind: 'token', limit: 50, tokenHash: hashToken(token) };
    expect(rateLimitBucket(createLink, { 'x-api-key': token }, limits)).toEqual(expected);
    expect(rateLimitBucket(getLink, { authorization: `Bearer ${token}` }, limits)).toEqual(expected);
  });

  it('never uses the raw token in the key', () => {
    const sut = rateLimitBucket(getLink, { 'x-api-key': token }, limits);

    expect(JSON.stringify(sut)).not.toContain(token);
  });

  it('gives different tokens different counters', () => {
    const other = `sl_${'b'.repeat(40)}`;
    const first = rateLimitBucket(getLink, { 'x-api-key': token }, limits);
    const second = rateLimitBucket(getLink, { 'x-api-key': other }, limits);

    expect(first).not.toEqual(second);
  });

  it('does not limit redirects or token-less calls to token routes', () => {
    expect(rateLimitBucket(redirect, {}, limits)).toBeUndefined();
    expect(rateLimitBucket(redirect, { 'x-api-key': token }, limits)).toBeUndefined();
    expect(rateLimitBucket(getLink, {}, limits)).toBeUndefined();
  });

  it('does not limit token calls outside /api/*', () => {
    const dashboard: RouteFacts = { path: '/dashboard/links', anonymousCreation: false, auth: 'required' };

    expect(rateLimitBucket(dashboard, { 'x-api-key': token }, limits)).toBeUndefined();
  });

  it('leaves malformed token headers to the auth guard (401 without a counter)', () => {
    expect(rateLimitBucket(createLink, { authorization: 'Basic abc' }, limits)).toBeUndefined();
    expect(rateLimitBucket(getLink, { 'x-api-key': token, authorization: 'Bearer other' }, limits)).toBeUndefined();
  });
});
