import type { Params } from 'nestjs-pino';
import type { IncomingMessage } from 'node:http';
import { stdSerializers, type Level, type SerializedRequest } from 'pino';
import { isLoggedPath } from '../common/http/route-table.js';
import type { AppConfig } from '../config/app-config.js';

/** Header values that carry secrets: never written to a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

/**
 * Paths whose last segment is a secret: the single-use links sent by email (a password reset's,
 * a sign-up's proof of address). Whoever reads the logs must not be able to use them.
 */
const SECRET_PATH = /^\/(password-reset|signup\/verify)\/[^/?#]+/;

/** A request's URL as a log line may show it: the secret of a link sent by email replaced. */
export function loggableUrl(url: string): string {
  return url.replace(SECRET_PATH, '/$1/[redacted]');
}

/**
 * Whether successful redirects are logged: only at `debug` and `trace`. They are the service's
 * bulk traffic (tens of thousands a second, one JSON line each), the fast path that answers
 * them skips the request logger, and each visit is already recorded in the link's `clicks`.
 * Redirects that fail (404s, errors) are logged at `info`/`error` like any other request.
 */
export function logsEveryRedirect(config: Pick<AppConfig, 'logLevel'>): boolean {
  return config.logLevel === 'debug' || config.logLevel === 'trace';
}

/**
 * nestjs-pino provides the application's logger (`Logger`, used by Nest and every `new Logger()`)
 * but not the request logging (`forRoutes: []` mounts none of its middleware). Its middleware
 * runs each request inside an `AsyncLocalStorage`, and once one has run, Node 20 calls async hooks
 * for every promise and async resource in the process: measured side by side, 11 to 23 % more
 * CPU per link creation on SQLite and 15 % on PostgreSQL. Requests are logged by
 * `registerRequestLogging` (request-logging.ts), in pino-http's format, through this logger.
 */
export function loggerOptions(config: AppConfig): Params {
  return {
    forRoutes: [],
    pinoHttp: {
      level: config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { req: loggableRequest },
    },
  };
}

/** pino-http's request serializer, with the URL as `loggableUrl` shows it. */
export function loggableRequest(req: IncomingMessage): SerializedRequest {
  const serialized = stdSerializers.req(req);
  serialized.url = loggableUrl(serialized.url);
  return serialized;
}

/** Health probes every few seconds would drown the request log (the route table says which paths). */
export function isLoggedRequest(req: { url?: string }): boolean {
  return isLoggedPath(req.url ?? '/');
}

/**
 * The level of a request's line: `error` for a server fault, `debug` for a successful redirect
 * (see `logsEveryRedirect`), `info` for the rest.
 */
export function requestLineLevel(method: string | undefined, status: number): Level {
  if (status >= 500) return 'error';
  return status === 302 && (method === 'GET' || method === 'HEAD') ? 'debug' : 'info';
}
