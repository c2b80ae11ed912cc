import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';

/**
 * Answers a request itself and returns true, or returns false (having touched nothing) to let
 * Fastify handle it as usual.
 */
export type EarlyRequestHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

/** What Fastify hands its `serverFactory`: its own options, defaults filled in. */
interface FastifyServerOptions {
  http?: ServerOptions | null;
  keepAliveTimeout: number;
  requestTimeout: number;
  connectionTimeout: number;
  maxRequestsPerSocket?: number | null;
}

const earlyRequestsByServer = new WeakMap<Server, EarlyRequests>();

/**
 * A seat in front of Fastify on the HTTP server's request event, for the one request that must
 * cost no more than a bare Node server's: the redirect of a cached code (see
 * src/redirect/redirect-fast-path.ts). Fastify builds request and reply objects, routes and runs
 * its hooks before any of its own hooks can answer; on a 2-core machine that alone is a
 * noticeable share of a redirect's cost.
 *
 * Installed through Fastify's documented `serverFactory` option; the server is the one Fastify
 * would create itself, with the same timeouts. Until a handler is set, every request goes
 * straight to Fastify.
 */
export class EarlyRequests {
  private handler?: EarlyRequestHandler;

  /** The early handler installed on `server`, if it was made by `serverFactory`. */
  static of(server: unknown): EarlyRequests | undefined {
    return earlyRequestsByServer.get(server as Server);
  }

  /** Sets the one early handler (a second call replaces the first). */
  use(handler: EarlyRequestHandler): void {
    this.handler = handler;
  }

  /** For Fastify's `serverFactory` option. */
  readonly serverFactory = (
    fastifyHandler: (request: IncomingMessage, response: ServerResponse) => void,
    fastifyOptions: Record<string, unknown>,
  ): Server => {
    const options = fastifyOptions as unknown as FastifyServerOptions;
    const server = createServer(options.http ?? {}, (request, response) => {
      if (this.handler?.(request, response) !== true) fastifyHandler(request, response);
    });
    // What Fastify applies to the server it creates itself (fastify/lib/server.js).
    server.keepAliveTimeout = options.keepAliveTimeout;
    server.requestTimeout = options.requestTimeout;
    server.setTimeout(options.connectionTimeout);
    if (options.maxRequestsPerSocket) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    earlyRequestsByServer.set(server, this);
    return server;
  };
}
