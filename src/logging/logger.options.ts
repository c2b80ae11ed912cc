import { RequestMethod } from '@nestjs/common';
import type { Params } from 'nestjs-pino';
import type { AppConfig } from '../config/app-config.js';

/** Header values that carry secrets: never written to a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

/**
 * Whether successful redirects are logged: only at `debug` and `trace`. They are the service's
 * bulk traffic (tens of thousands a second, one JSON line each), the fast path that answers
 * them skips the request logger, and each visit is already recorded in the link's `clicks`. Redirects that
 * fail (404s, errors) are logged at `info`/`error` like any other request.
 */
export function logsEveryRedirect(config: Pick<AppConfig, 'logLevel'>): boolean {
  return config.logLevel === 'debug' || config.logLevel === 'trace';
}

/** A successful `GET|HEAD /{code}` redirect, seen from the request logger. */
function isRedirect(req: { method?: string }, res: { statusCode: number }): boolean {
  return res.statusCode === 302 && (req.method === 'GET' || req.method === 'HEAD');
}

export function loggerOptions(config: AppConfig): Params {
  return {
    // nestjs-pino's default route pattern (`{/*splat}`) matches nothing under the Fastify adapter
    // of Nest 12, which silently turned request logging off; `{*splat}` matches every path.
    forRoutes: [{ path: '{*splat}', method: RequestMethod.ALL }],
    pinoHttp: {
      level: config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // Health probes every few seconds would drown the request log.
      // Middleware sees `url` with the matched prefix stripped; `originalUrl` is the request's own.
      autoLogging: {
        ignore: (req) => ((req as { originalUrl?: string }).originalUrl ?? req.url ?? '').startsWith('/health'),
      },
      customLogLevel: (req, res, error) =>
        error || res.statusCode >= 500 ? 'error' : isRedirect(req, res) ? 'debug' : 'info',
    },
  };
}
