import { ExecutionContext, HttpStatus, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import { AUTH_POLICY, type AuthPolicy } from '../auth/auth.decorators.js';
import { ApiError } from '../common/errors/api-error.js';
import type { AppConfig } from '../config/app-config.js';
import { ServiceCounters } from '../metrics/service-counters.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { ANONYMOUS_CREATION } from './rate-limit.decorators.js';
import { rateLimitBucket, type RateLimitBucket } from './rate-limit.policy.js';

const RATE_LIMIT_KEY_PREFIX = 'shortlink:rate-limit:';

// The bucket is decided once per request (skip check, limit, tracker all need it).
const buckets = new WeakMap<object, RateLimitBucket>();

/** The limit of the request's bucket; used as the throttler's `limit` (see rate-limit.module.ts). */
export function bucketLimit(context: ExecutionContext): number {
  const bucket = buckets.get(context.switchToHttp().getRequest<object>());
  if (!bucket) throw new Error('Rate limit bucket requested for a request that is not limited');
  return bucket.limit;
}

/**
 * @nestjs/throttler's guard with shortlink's rules: which counter a request is charged to (see
 * rate-limit.policy.ts), one key per counter across routes, and 429 answers in the service's
 * error shape carrying the `X-RateLimit-*` headers as well as `Retry-After`.
 *
 * It reads the token from the headers itself instead of relying on the auth guard having run,
 * so the order of the global guards does not matter.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly counters: ServiceCounters,
  ) {
    super(options, storage, reflector);
  }

  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return Promise.resolve(true);
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const targets = [context.getHandler(), context.getClass()];
    const bucket = rateLimitBucket(
      {
        path: request.routeOptions.url ?? request.url,
        anonymousCreation: this.reflector.getAllAndOverride<boolean | undefined>(ANONYMOUS_CREATION, targets) ?? false,
        auth: this.reflector.getAllAndOverride<AuthPolicy | undefined>(AUTH_POLICY, targets)?.kind,
      },
      request.headers,
      this.config.rateLimit,
    );
    if (!bucket) return Promise.resolve(true);
    buckets.set(request, bucket);
    return Promise.resolve(false);
  }

  protected override async getTracker(request: Record<string, unknown>): Promise<string> {
    const bucket = buckets.get(request);
    // The parent normalises the client IP (IPv4-mapped IPv6 → IPv4, IPv6 → its /64 network).
    return bucket?.kind === 'token' ? `token:${bucket.tokenHash}` : `ip:${await super.getTracker(request)}`;
  }

  // One counter per client across routes: the parent's key would also name the handler.
  protected override generateKey(_context: ExecutionContext, tracker: string): string {
    return `${RATE_LIMIT_KEY_PREFIX}${tracker}`;
  }

  protected override throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    // The parent has set Retry-After; the X-RateLimit-* headers belong on the 429 too.
    const { res } = this.getRequestResponse(context);
    this.setResponseHeader(res, `${this.headerPrefix}-Limit`, detail.limit);
    this.setResponseHeader(res, `${this.headerPrefix}-Remaining`, 0);
    this.setResponseHeader(res, `${this.headerPrefix}-Reset`, detail.timeToExpire);

    const bucket = buckets.get(context.switchToHttp().getRequest<object>());
    if (bucket?.kind === 'token') this.counters.refusedToken++;
    else this.counters.refusedAnonymous++;
    const who = bucket?.kind === 'token' ? 'this API token' : 'anonymous link creation from one address';
    const window = this.config.rateLimit.windowSeconds;
    return Promise.reject(
      new ApiError(
        HttpStatus.TOO_MANY_REQUESTS,
        'rate_limited',
        `Rate limit of ${detail.limit} requests per ${window} seconds reached for ${who}; retry in ${detail.timeToBlockExpire} seconds`,
      ),
    );
  }
}
