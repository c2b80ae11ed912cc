import { isCrossOriginPath, isLoggedPath, isPagePath, RESERVED_SEGMENTS, routeOf } from './route-table.js';

describe('the route table', () => {
  it('finds a path by its first segment, whatever follows, in any case', () => {
    expect(routeOf('/api/links?limit=5')?.kind).toBe('api');
    expect(routeOf('/dashboard')?.kind).toBe('page');
    expect(routeOf('/Dashboard/links/abc')?.kind).toBe('page');
    expect(routeOf('/login?next=%2Fdashboard')?.kind).toBe('page');
    expect(routeOf('/health/ready')?.kind).toBe('health');
  });

  it('takes the front page for a page and any other first segment for a short code', () => {
    expect(routeOf('/')?.kind).toBe('page');
    expect(routeOf('/?created=abc')?.kind).toBe('page');
    expect(routeOf('/abc123')).toBeUndefined();
    expect(routeOf('/apis')).toBeUndefined();
    expect(routeOf('/healthz')).toBeUndefined();
    expect(routeOf('/constructor')).toBeUndefined();
  });

  it('accepts forms on pages only', () => {
    expect(
      ['/', '/signup', '/login/code', '/logout', '/account/password', '/dashboard/tokens'].map(isPagePath),
    ).toEqual([true, true, true, true, true, true]);
    expect(['/api/links', '/abc123', '/static/app.css', '/docs', '/health'].map(isPagePath)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('answers CORS on the API and its document only', () => {
    expect(isCrossOriginPath('/api/links')).toBe(true);
    expect(isCrossOriginPath('/openapi.json')).toBe(true);
    expect(isCrossOriginPath('/api')).toBe(false);
    expect(isCrossOriginPath('/dashboard')).toBe(false);
    expect(isCrossOriginPath('/abc123')).toBe(false);
  });

  it('leaves health probes out of the request log, and nothing else', () => {
    expect(isLoggedPath('/health')).toBe(false);
    expect(isLoggedPath('/health/ready')).toBe(false);
    expect(isLoggedPath('/healthy')).toBe(true);
    expect(isLoggedPath('/api/links')).toBe(true);
  });

  it('reserves every first segment it names, lower-case', () => {
    expect([...RESERVED_SEGMENTS]).toEqual(expect.arrayContaining(['api', 'docs', 'health', 'dashboard', 'static']));
    for (const name of RESERVED_SEGMENTS) expect(name).toBe(name.toLowerCase());
  });
});
