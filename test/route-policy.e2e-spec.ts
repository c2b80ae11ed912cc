import { DashboardCookies } from '../src/auth/sessions/dashboard-cookies.js';
import { SessionsService } from '../src/auth/sessions/sessions.service.js';
import { createAccountWithToken, createAdminWithToken, newClient, type TestAccount } from './support/factories.js';
import { routesOf, type Route } from './support/routes.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/** A concrete URL for a route's pattern (`:code` → a code no account has): the guard decides before any lookup. */
function urlOf(route: Route): string {
  return route.path.replace(/:[A-Za-z]+/g, 'zz9routewalk');
}

describe('route access policies', () => {
  let testApp: TestApp;
  let routes: Route[];
  let owner: TestAccount;
  /** A live session of `owner`'s account, as the browser's Cookie header. */
  let sessionCookie: string;
  let admin: TestAccount;
  /** A live session of an admin's account. */
  let adminCookie: string;

  beforeAll(async () => {
    testApp = await startTestApp({ TRUST_PROXY: '1' });
    routes = routesOf(testApp);
    owner = await createAccountWithToken(testApp);
    const sessionId = await testApp.app.get(SessionsService).start(owner.accountId);
    sessionCookie = `${testApp.app.get(DashboardCookies).name('session')}=${sessionId}`;
    admin = await createAdminWithToken(testApp);
    const adminSessionId = await testApp.app.get(SessionsService).start(admin.accountId);
    adminCookie = `${testApp.app.get(DashboardCookies).name('session')}=${adminSessionId}`;
  });

  afterAll(async () => {
    await testApp.close();
  });

  it('finds the routes the application really serves', () => {
    const fastify = testApp.app.getHttpAdapter().getInstance();
    const served = routes.filter((route) => fastify.hasRoute({ method: route.method, url: route.path }));

    // The walk is not vacuous: it sees the well-known routes, and each one it sees is live.
    expect(routes.map((route) => `${route.method} ${route.path}`)).toEqual(
      expect.arrayContaining([
        'GET /health',
        'GET /health/ready',
        'GET /api/links',
        'POST /api/links',
        'GET /api/s',
        'GET /dashboard',
        'POST /account/password',
        'GET /login',
      ]),
    );
    expect(served.map((route) => route.handler)).toEqual(routes.map((route) => route.handler));
  });

  it('gives every route an access policy', () => {
    const undeclared = routes
      .filter((route) => !route.policy)
      .map((route) => `${route.method} ${route.path} (${route.handler})`);

    expect(undeclared).toEqual([]);
  });

  it('gives pages a page policy and API routes a token policy, and keeps pages out of the API document', () => {
    const misdeclared = routes
      .filter((route) => {
        const pagePolicy = route.policy?.kind === 'public' || route.policy?.kind === 'signed-in';
        const apiPolicy = route.policy?.kind !== 'signed-in';
        return route.page ? !pagePolicy || route.inApiDocs : !apiPolicy;
      })
      .map((route) => `${route.method} ${route.path} (${route.handler})`);

    expect(misdeclared).toEqual([]);
  });

  it('names at least one scope on every token route', () => {
    const scopeless = routes.filter(
      (route) => route.policy && 'scopes' in route.policy && route.policy.scopes.length === 0,
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

  it('sends a visitor without a session from every signed-in page to the sign-in page, token or not', async () => {
    const signedInPages = routes.filter((route) => route.page && route.policy?.kind === 'signed-in');
    expect(signedInPages.length).toBeGreaterThanOrEqual(15);

    const answers: Array<{ route: string; status: number; location: string | null }> = [];
    for (const route of signedInPages) {
      // No credentials, then each form of a valid API token: a token never opens a page.
      for (const credentials of [{}, owner.bearer, owner.apiKey]) {
        const response = await testApp.request(urlOf(route), {
          method: route.method,
          headers: { ...newClient(), ...credentials, 'content-type': 'application/x-www-form-urlencoded' },
          body: route.method === 'GET' ? undefined : 'url=https%3A%2F%2Fexample.com%2F',
        });
        answers.push({
          route: `${route.method} ${route.path}`,
          status: response.status,
          location: response.headers.get('location'),
        });
      }
    }

    // A page comes back to itself; a form to a page that exists (never a `:code` pattern).
    expect(answers).toEqual(
      answers.map(({ route }) => ({
        route,
        status: 303,
        location: route.startsWith('GET ')
          ? `/login?next=${encodeURIComponent(urlOf({ path: route.slice(4) } as Route))}`
          : expect.stringMatching(
              /^\/login\?next=%2F(dashboard|dashboard%2Ftokens|dashboard%2Fwebhooks|account|admin%2Fblocked-hosts)$/,
            ),
      })),
    );
  });

  it('brings a form posted after the session ended back to the page it was on (same origin only)', async () => {
    const post = (referer: string) =>
      testApp.request('/dashboard/links/zz9routewalk/delete', {
        method: 'POST',
        headers: { ...newClient(), referer, 'content-type': 'application/x-www-form-urlencoded' },
        body: '_csrf=x',
      });
    const sameOrigin = await post(`${testApp.baseUrl}/dashboard/links/zz9routewalk?saved=1`);
    const elsewhere = await post('https://attacker.example/dashboard/tokens');

    expect(sameOrigin.headers.get('location')).toBe(
      `/login?next=${encodeURIComponent('/dashboard/links/zz9routewalk?saved=1')}`,
    );
    expect(elsewhere.headers.get('location')).toBe('/login?next=%2Fdashboard');
  });

  it('refuses a form posted to any signed-in page without the session-bound form token', async () => {
    const forms = routes.filter((route) => route.page && route.policy?.kind === 'signed-in' && route.method === 'POST');
    expect(forms.length).toBeGreaterThanOrEqual(10);

    for (const route of forms) {
      // An admin page's form with an admin's session: anyone else's is refused before (404).
      const cookie = route.policy?.kind === 'signed-in' && route.policy.role === 'admin' ? adminCookie : sessionCookie;
      const response = await testApp.request(urlOf(route), {
        method: 'POST',
        headers: { ...newClient(), cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: '_csrf=forged&confirm_email=x',
      });
      expect({ route: route.path, status: response.status }).toEqual({ route: route.path, status: 403 });
    }
    // Nothing was done on the account's behalf: it still signs in with its session and token.
    expect((await testApp.request('/dashboard', { headers: { cookie: sessionCookie } })).status).toBe(200);
    expect((await testApp.request('/api/links', { headers: owner.bearer })).status).toBe(200);
  });

  it('refuses a form posted to any public page without its form token, before the page does anything', async () => {
    const forms = routes.filter((route) => route.page && route.policy?.kind === 'public' && route.method !== 'GET');
    // Sign-up, sign-in (password, code, passkey), the front page, a report, a password reset: no
    // handler checks a token itself, so a new form cannot forget to.
    expect(forms.map((route) => route.path)).toEqual(
      expect.arrayContaining(['/signup', '/login', '/login/code', '/login/passkey', '/', '/report', '/password-reset']),
    );
    // Only signing out asks no token of a visitor without a session (it then does nothing).
    expect(forms.filter((route) => route.formTokenIfSignedIn).map((route) => route.path)).toEqual(['/logout']);

    const answers: string[] = [];
    for (const route of forms.filter((r) => !r.formTokenIfSignedIn)) {
      for (const body of [
        'email=someone%40example.test&password=x&url=https%3A%2F%2Fexample.com%2F',
        '_csrf=forged&email=x',
      ]) {
        const response = await testApp.request(urlOf(route), {
          method: route.method,
          headers: { ...newClient(), 'content-type': 'application/x-www-form-urlencoded' },
          body,
        });
        answers.push(`${route.method} ${route.path} ${response.status}`);
      }
    }
    expect(answers).toEqual(answers.map((answer) => answer.replace(/\d+$/, '403')));
    // Signed in, signing out asks the form's token as well: a forged one ends nothing.
    const withSession = await testApp.request('/logout', {
      method: 'POST',
      headers: { ...newClient(), cookie: sessionCookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: '_csrf=forged',
    });
    expect(withSession.status).toBe(403);
    expect((await testApp.request('/dashboard', { headers: { cookie: sessionCookie } })).status).toBe(200);
  });

  it('keeps /admin for admins and /api/admin for the scope admin, and nothing else there', () => {
    const admins = routes.filter((route) => route.path === '/admin' || route.path.startsWith('/admin/'));
    const adminApi = routes.filter((route) => route.path.startsWith('/api/admin/'));
    expect(admins.length).toBeGreaterThanOrEqual(14);
    expect(adminApi.length).toBeGreaterThanOrEqual(6);

    expect(
      admins.filter((route) => !(route.page && route.policy?.kind === 'signed-in' && route.policy.role === 'admin')),
    ).toEqual([]);
    expect(
      adminApi.filter((route) => route.policy?.kind !== 'required' || route.policy.scopes.join() !== 'admin'),
    ).toEqual([]);
    // The role and the scope are nowhere else.
    const elsewhere = routes.filter(
      (route) =>
        !admins.includes(route) &&
        !adminApi.includes(route) &&
        ((route.policy?.kind === 'signed-in' && route.policy.role !== undefined) ||
          (route.policy && 'scopes' in route.policy && route.policy.scopes.includes('admin'))),
    );
    expect(elsewhere).toEqual([]);
  });

  it('answers every admin page 404 to a signed-in non-admin and every admin API route 403 to a token without admin', async () => {
    const answers: string[] = [];
    for (const route of routes.filter((r) => r.path === '/admin' || r.path.startsWith('/admin/'))) {
      const response = await testApp.request(urlOf(route), {
        method: route.method,
        headers: { ...newClient(), cookie: sessionCookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: route.method === 'GET' ? undefined : 'host=x.example&reason=x',
      });
      answers.push(`${route.method} ${route.path} ${response.status}`);
    }
    for (const route of routes.filter((r) => r.path.startsWith('/api/admin/'))) {
      const response = await testApp.request(urlOf(route), {
        method: route.method,
        headers: { ...newClient(), ...owner.bearer, 'content-type': 'application/json' },
        body: route.method === 'GET' || route.method === 'DELETE' ? undefined : '{"host":"x.example","reason":"x"}',
      });
      answers.push(`${route.method} ${route.path} ${response.status}`);
    }

    expect(answers.filter((answer) => !/ (404|403)$/.test(answer))).toEqual([]);
    expect(answers.filter((answer) => answer.includes(' /admin') && !answer.endsWith(' 404'))).toEqual([]);
    expect(answers.filter((answer) => answer.includes(' /api/admin') && !answer.endsWith(' 403'))).toEqual([]);
  });

  it('never lets a session cookie authorise an API route that needs a token', async () => {
    const tokenRoutes = routes.filter((route) => !route.page && route.policy?.kind === 'required');
    expect(tokenRoutes.length).toBeGreaterThanOrEqual(7);

    for (const route of tokenRoutes) {
      const response = await testApp.request(urlOf(route), {
        method: route.method,
        headers: { ...newClient(), cookie: sessionCookie, 'content-type': 'application/json' },
        body: route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}',
      });
      expect({ route: `${route.method} ${route.path}`, status: response.status }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 401,
      });
    }
  });
});
