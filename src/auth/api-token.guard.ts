import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../common/errors/api-error.js';
import { TokensService } from './tokens.service.js';
import { AUTH_POLICY, type AuthenticatedRequest, type AuthPolicy } from './auth.decorators.js';
import { extractToken } from './token-extraction.js';

/**
 * The one global guard. Default-deny: a route without an auth policy is refused (and a test
 * fails when one exists), so forgetting a decorator can never expose an endpoint.
 */
@Injectable()
export class ApiTokenGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokensService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = this.reflector.getAllAndOverride<AuthPolicy | undefined>(AUTH_POLICY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!policy) throw ApiError.forbidden('This route declares no access policy');
    if (policy.kind === 'public') return true;

    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const presented = extractToken(request.headers);
    if (presented.kind === 'malformed') throw ApiError.unauthorized(presented.reason);
    if (presented.kind === 'none') {
      if (policy.kind === 'optional') return true;
      throw ApiError.unauthorized('This operation needs an API token (X-API-Key or Authorization: Bearer)');
    }

    const token = await this.tokens.authenticate(presented.value);
    if (!token) throw ApiError.unauthorized('The API token is invalid or revoked');
    const missing = policy.scopes.filter((scope) => !token.scopes.includes(scope));
    if (missing.length > 0) throw ApiError.forbidden(`The API token lacks the scope ${missing.join(', ')}`);

    request.caller = { accountId: token.accountId, tokenId: token.id, scopes: token.scopes };
    return true;
  }
}
