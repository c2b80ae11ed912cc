import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { EarlyRequests } from '../common/http/early-requests.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { logsEveryRedirect } from '../logging/logger.options.js';
import { redirectHeadersOf } from './redirect-request-headers.js';
import { RedirectService } from './redirect.service.js';

/**
 * Answers redirects of cached codes from the HTTP server's request event, before Fastify builds
 * its request and reply, routes, and runs its hooks (the request logger among them) and Nest's
 * guards and interceptors: on this machine that pipeline costs more than the redirect itself
 * (docs/adr/0001-redirect-fast-path.md). It is seated there by `EarlyRequests` (Fastify's documented
 * `serverFactory` option, see app.factory.ts).
 *
 * It changes nothing a client can see. It only takes `GET` and `HEAD` of `/<code>` (a query
 * string is ignored, as the route ignores it) where the code is cached; anything else (other
 * paths, unknown or cold codes, a suspended cache, %-encoded or absolute-form URLs) goes to
 * Fastify untouched, which routes it as before. A cached code can only be one that Fastify
 * routed to the redirect route: the cache is filled by `RedirectService.resolve`, which only the
 * redirect controller calls, and codes that a static route would shadow are reserved
 * (short-code.ts). The answer and click counting are `RedirectService`'s, shared with
 * `RedirectController`. Once the server stops listening (shutdown), every request goes through
 * Fastify, which marks answers `Connection: close` (graceful-shutdown.ts).
 *
 * The one difference is logging: these redirects bypass the request logger. Successful redirects
 * are logged at `debug` on both paths (see `logger.options.ts`); with `LOG_LEVEL=debug` or
 * `trace` the fast path stays off so that every redirect is logged.
 */
@Injectable()
export class RedirectFastPath implements OnModuleInit {
  private readonly logger = new Logger(RedirectFastPath.name);
  private server?: Server;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly redirects: RedirectService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (logsEveryRedirect(this.config)) return;
    // A standalone context (the CLI) has no HTTP adapter.
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    const early = EarlyRequests.of(server);
    if (!server || !early) return;
    this.server = server;
    early.use((request, response) => this.tryAnswer(request, response));
    this.logger.debug('Cached redirects are answered before Fastify and the Nest pipeline');
  }

  /** Answers the request if it is the redirect of a cached code; returns whether it did. */
  tryAnswer(request: IncomingMessage, response: ServerResponse): boolean {
    const { method, url } = request;
    if ((method !== 'GET' && method !== 'HEAD') || url === undefined || url.charCodeAt(0) !== SLASH) return false;
    if (!this.server?.listening) return false;
    const queryAt = url.indexOf('?', 1);
    // No shape check needed: only codes that passed `couldBeCode` are ever cached, so anything
    // else (a longer path, %-encoding, a trailing slash) simply misses.
    const code = queryAt === -1 ? url.slice(1) : url.slice(1, queryAt);
    const target = this.redirects.cachedTarget(code);
    if (target === undefined) return false;
    const headers = redirectHeadersOf(request.rawHeaders);
    return this.redirects.writeRedirect(method, code, target, headers, request.socket, response);
  }
}

const SLASH = 0x2f;
