import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../common/errors/api-error.js';
import { AccessGuard } from './access.guard.js';
import { PAGE_ROUTES, Public, RequireScopes, SignedIn } from './auth.decorators.js';
import type { CsrfTokens } from './sessions/csrf-tokens.js';
import type { DashboardCookies } from './sessions/dashboard-cookies.js';
import { SignInRequiredError } from './sessions/page-access.errors.js';
import type { SessionsService } from './sessions/sessions.service.js';
import type { TokensService } from './tokens.service.js';

/** A route's handler and controller, decorated as a controller would be. */
function route(decorate: MethodDecorator, page: boolean) {
  class Controller {
    handle() {
      return undefined;
    }
  }
  const descriptor = Object.getOwnPropertyDescriptor(Controller.prototype, 'handle')!;
  decorate(Controller.prototype, 'handle', descriptor);
  if (page) Reflect.defineMetadata(PAGE_ROUTES, true, Controller);
  return { handler: descriptor.value as () => unknown, controller: Controller };
}

function contextOf({ handler, controller }: ReturnType<typeof route>, headers: Record<string, string> = {}) {
  const request = { method: 'GET', url: '/somewhere', headers, cookies: {} };
  return {
    request,
    context: {
      getHandler: () => handler,
      getClass: () => controller,
      switchToHttp: () => ({ getRequest: () => request }),
    } as unknown as ExecutionContext,
  };
}

describe('AccessGuard', () => {
  const tokens = {
    authenticate: (value: string) =>
      Promise.resolve(value === 'good' ? { id: 't1', accountId: 'a1', scopes: ['links:read', 'links:write'] } : null),
  } as unknown as TokensService;
  const sessions = { resolve: () => Promise.resolve(null) } as unknown as SessionsService;
  const cookies = { read: () => undefined } as unknown as DashboardCookies;
  const csrf = { valid: () => false } as unknown as CsrfTokens;
  const guard = new AccessGuard(new Reflector(), tokens, sessions, cookies, csrf);

  it('refuses a page that declares an API policy, even with a valid token', async () => {
    const { context } = contextOf(route(RequireScopes('links:read'), true), { authorization: 'Bearer good' });

    await expect(guard.canActivate(context)).rejects.toThrow(ApiError);
  });

  it('refuses an API route that declares a page policy', async () => {
    const { context } = contextOf(route(SignedIn(), false));

    await expect(guard.canActivate(context)).rejects.toThrow('This route declares a page policy');
  });

  it('sends a signed-in page to sign in when the only credential is an API token', async () => {
    const { context } = contextOf(route(SignedIn(), true), { authorization: 'Bearer good' });

    await expect(guard.canActivate(context)).rejects.toThrow(SignInRequiredError);
  });

  it('admits a token to an API route and records who called', async () => {
    const { context, request } = contextOf(route(RequireScopes('links:read'), false), { authorization: 'Bearer good' });

    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(request).toMatchObject({ principal: { kind: 'token', accountId: 'a1', tokenId: 't1' } });
  });

  it('admits anyone to a public page, as nobody in particular', async () => {
    const { context, request } = contextOf(route(Public(), true), { authorization: 'Bearer good' });

    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(request).not.toHaveProperty('principal');
  });
});
