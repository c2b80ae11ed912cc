import { routesOf, type Route } from './support/routes.js';
import { startTestApp, type TestApp } from './support/test-app.js';

describe('route access policies', () => {
  let testApp: TestApp;
  let routes: Route[];

  beforeAll(async () => {
    testApp = await startTestApp();
    routes = routesOf(testApp);
  });

  afterAll(async () => {
    await testApp.close();
  });

  it('finds the routes the application really serves', () => {
    const fastify = testApp.app.getHttpAdapter().getInstance();
    const served = routes.filter((route) => fastify.hasRoute({ method: route.method, url: route.path }));

    // The walk is not vacuous: it sees the well-known routes, and each one it sees is live.
    expect(routes.map((route) => `${route.method} ${route.path}`)).toEqual(
      expect.arrayContaining(['GET /health', 'GET /health/ready', 'GET /api/links', 'POST /api/links', 'GET /api/s']),
    );
    expect(served.map((route) => route.handler)).toEqual(routes.map((route) => route.handler));
  });

  it('gives every route @Public(), @RequireScopes() or @OptionalScopes()', () => {
    const undeclared = routes
      .filter((route) => !route.policy)
      .map((route) => `${route.method} ${route.path} (${route.handler})`);

    expect(undeclared).toEqual([]);
  });

  it('names at least one scope on every token route', () => {
    const scopeless = routes.filter(
      (route) => route.policy && route.policy.kind !== 'public' && route.policy.scopes.length === 0,
    );

    expect(scopeless.map((route) => route.handler)).toEqual([]);
  });

  it('keeps the token endpoints of the links API behind a token', () => {
    const byRoute = Object.fromEntries(routes.map((route) => [`${route.method} ${route.path}`, route.policy]));

    expect(byRoute['GET /api/links']).toEqual({ kind: 'required', scopes: ['links:read'] });
    expect(byRoute['POST /api/links']).toEqual({ kind: 'optional', scopes: ['links:write'] });
    expect(byRoute['GET /api/links/:code']).toEqual({ kind: 'required', scopes: ['links:read'] });
    expect(byRoute['PUT /api/links/:code']).toEqual({ kind: 'required', scopes: ['links:write'] });
    expect(byRoute['DELETE /api/links/:code']).toEqual({ kind: 'required', scopes: ['links:write'] });
  });
});
