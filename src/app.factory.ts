import type { IncomingMessage } from 'node:http';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module.js';
import { configureApp } from './app.setup.js';
import { sendProblem } from './common/errors/problem-details.filter.js';
import { registerCrossOrigin } from './common/http/cross-origin.js';
import { registerSecurityHeaders } from './common/http/security-headers.js';
import { DEFAULT_BODY_LIMIT, registerBodyLimits } from './common/http/body-limits.js';
import { EarlyRequests } from './common/http/early-requests.js';
import { requireListedRoutes } from './common/http/route-table.js';
import { registerJsonBodyParser } from './common/http/json-body-parser.js';
import { registerPagePlugins } from './pages/pages.plugins.js';
import type { AppConfig } from './config/app-config.js';
import { registerRequestLogging } from './logging/request-logging.js';
import { echoRequestIds, REQUEST_ID_HEADER, requestIdOf } from './logging/request-id.js';
import { closeConnectionsWhenClosing } from './lifecycle/graceful-shutdown.js';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/** Builds the configured (not yet listening) application. */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    // The HTTP server Fastify would create, with a seat in front of it for cached redirects
    // (see src/redirect/redirect-fast-path.ts).
    serverFactory: new EarlyRequests().serverFactory,
    // Per-route limits and what a refused client sees: src/common/http/body-limits.ts.
    bodyLimit: DEFAULT_BODY_LIMIT,
    // Requests reaching a closing instance are served, not refused (see graceful-shutdown.ts).
    return503OnClosing: false,
    // Request ids: a valid incoming X-Request-Id, else a new UUID (src/logging/request-id.ts).
    requestIdHeader: false,
    genReqId: (request: IncomingMessage) => requestIdOf(request.headers[REQUEST_ID_HEADER]),
    // TRUST_PROXY=true believes exactly one proxy hop: the client IP is the address the load
    // balancer appended to X-Forwarded-For, not whatever the client wrote there itself
    // (`true` would take the first entry, which any client can forge to dodge rate limits).
    // (A hop count of 1, written as the function proxy-addr makes of it, since the types lack numbers.)
    trustProxy: config.trustProxy ? (_address: string, hop: number) => hop < 1 : false,
    // The router's own errors (a path with broken %-encoding, an overlong parameter) get the
    // same problem-details answer as every other error.
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) =>
      sendProblem(error, reply, new Logger('Errors')),
  });
  // Bodies are JSON only (Fastify's parser behind a nesting-depth check); the text/plain parser
  // goes, and `bodyParser: false` keeps Nest from adding a form (urlencoded) parser. Any other
  // media type is refused by Fastify with 415 before a handler runs.
  requireListedRoutes(adapter.getInstance());
  adapter.getInstance().removeContentTypeParser('text/plain');
  registerJsonBodyParser(adapter.getInstance());
  registerBodyLimits(adapter.getInstance());
  closeConnectionsWhenClosing(adapter.getInstance());
  echoRequestIds(adapter.getInstance());
  await registerPagePlugins(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    bufferLogs: true,
    bodyParser: false,
  });
  registerRequestLogging(adapter.getInstance());
  registerSecurityHeaders(app, config);
  await registerCrossOrigin(app, config);
  return configureApp(app);
}
