import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { AUTH_POLICY, type AuthPolicy } from '../src/auth/auth.decorators.js';
import { startTestApp, type TestApp } from './support/test-app.js';

interface Route {
  method: string;
  path: string;
  handler: string;
  policy: AuthPolicy | undefined;
}

/** Every HTTP route the application's controllers declare, with the auth policy the guard sees. */
function routesOf(testApp: TestApp): Route[] {
  const reflector = new Reflector();
  const scanner = new MetadataScanner();
  const routes: Route[] = [];
  for (const module of testApp.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
      if (!controller) continue;
      const prefix = (Reflect.getMetadata(PATH_METADATA, controller) as string | undefined) ?? '';
      for (const name of scanner.getAllMethodNames(controller.prototype as object)) {
        const handler = (controller.prototype as Record<string, unknown>)[name] as (...args: unknown[]) => unknown;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (path === undefined) continue; // a helper method, not a route
        const method =
          RequestMethod[(Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod) ?? RequestMethod.GET];
        for (const one of Array.isArray(path) ? path : [path]) {
          routes.push({
            method,
            path: `/${[prefix, one]
              .map((part) => part.replace(/^\/|\/$/g, ''))
              .filter(Boolean)
              .join('/')}`,
            handler: `${controller.name}.${name}`,
            // Exactly how the guard reads it: the handler's decorator wins over the controller's.
            policy: reflector.getAllAndOverride<AuthPolicy | undefined>(AUTH_POLICY, [handler, controller]),
          });
        }
      }
    }
  }
  return routes;
}

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
