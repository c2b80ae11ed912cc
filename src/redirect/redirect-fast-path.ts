import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { logsEveryRedirect } from '../logging/logger.options.js';
import { RedirectService } from './redirect.service.js';

/** The redirect route's path, shared with `RedirectController` so the two cannot drift apart. */
export const REDIRECT_ROUTE = ':code';
const ROUTE_URL = `/${REDIRECT_ROUTE}`;

type OnRequestHook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;
interface AdapterWithRequestHook {
  setOnRequestHook(hook: OnRequestHook): void;
}

/**
 * Answers redirects of cached codes straight from Fastify's first `onRequest` hook, before Nest
 * middleware (the request logger), guards, interceptors and the router-execution context run:
 * on this machine that pipeline costs more than the redirect itself (see the README's benchmark).
 *
 * It changes nothing a client can see: Fastify has already routed the request, so this only
 * acts on requests matched to the redirect route (static routes such as `/health` keep
 * precedence exactly as before); the answer and click counting are `RedirectService`'s, shared
 * with `RedirectController`; anything not cached (unknown codes, cold links, a suspended cache)
 * continues to the controller. The skipped guards have nothing to do here: the route is public
 * and redirects are never rate limited.
 *
 * The one difference is logging: these redirects bypass the request logger. Successful redirects
 * are logged at `debug` on both paths (see `logger.options.ts`); with `LOG_LEVEL=debug` or
 * `trace` the fast path stays off so that every redirect is logged.
 */
@Injectable()
export class RedirectFastPath implements OnModuleInit {
  private readonly logger = new Logger(RedirectFastPath.name);

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly redirects: RedirectService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (logsEveryRedirect(this.config)) return;
    const adapter = this.adapterHost.httpAdapter as unknown as Partial<AdapterWithRequestHook> | undefined;
    // A standalone context (the CLI) has no HTTP adapter.
    if (typeof adapter?.setOnRequestHook !== 'function') return;
    // The adapter's own first hook: it runs before the middleware that Nest registers through
    // @fastify/middie, which a hook added with `fastify.addHook` would not.
    adapter.setOnRequestHook((request, reply, done) => this.handle(request, reply, done));
    this.logger.debug('Cached redirects are answered before the Nest pipeline');
  }

  private handle(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    if (request.routeOptions.url !== ROUTE_URL) return done();
    const code = (request.params as { code: string }).code;
    const target = this.redirects.cachedTarget(code);
    if (target === undefined) return done();
    // Answered here: Fastify skips the rest of the lifecycle when a callback hook sends a reply
    // without calling done().
    this.redirects.sendRedirect(request, reply, code, target);
  }
}
