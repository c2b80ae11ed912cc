import Fastify from 'fastify';
import { requireListedRoutes, ROUTE_TABLE } from '../src/common/http/route-table.js';
import { RESERVED_CODES } from '../src/links/short-code.js';
import { routesOf } from './support/routes.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * The route table against what the application really serves. The application itself refuses to
 * start with a route the table does not name (`requireListedRoutes`): this spec shows that it
 * starts, and that an unlisted route is refused.
 */
describe('the route table', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp();
  });

  afterAll(async () => {
    await testApp.close();
  });

  it('names the first segment of every route the application serves (it started)', () => {
    const fastify = testApp.app.getHttpAdapter().getInstance();
    const segments = new Set(routesOf(testApp).map((route) => route.path.split('/')[1] ?? ''));

    expect(fastify.hasRoute({ method: 'GET', url: '/static/*' })).toBe(true);
    expect(fastify.hasRoute({ method: 'GET', url: '/docs' })).toBe(true);
    expect(
      [...segments].filter((segment) => segment !== '' && segment !== ':code' && !RESERVED_CODES.has(segment)),
    ).toEqual([]);
  });

  it('keeps a route it does not name from being served', async () => {
    const fastify = Fastify();
    requireListedRoutes(fastify);
    fastify.get('/api/ok', () => 'listed');
    fastify.get('/:code', () => 'a short code');

    expect(() => fastify.get('/webhooks/incoming', () => 'unlisted')).toThrow(/not in the route table/);
    await fastify.close();
  });

  it('reserves, as custom codes, exactly the first segments it names', () => {
    expect([...RESERVED_CODES].sort()).toEqual(Object.keys(ROUTE_TABLE).sort());
  });
});
