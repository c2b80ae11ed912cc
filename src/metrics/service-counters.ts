import { Injectable } from '@nestjs/common';

/**
 * What the hot paths count, as plain numbers: an increment costs the same whether metrics are
 * served or not, and `/metrics` reads them when it is scraped (metrics.registry.ts). Counters
 * only ever grow.
 */
@Injectable()
export class ServiceCounters {
  /** Cached redirects answered by the fast path (redirect-fast-path.ts), by method. */
  fastRedirectsGet = 0;
  fastRedirectsHead = 0;
  /** Redirects answered through Fastify, by result. */
  redirectsFound = 0;
  redirectsNotFound = 0;
  redirectsGone = 0;
  /** Links disabled by the admins (410 with a page). */
  redirectsDisabled = 0;
  /** Lookups of the redirect cache on the Fastify path (every fast-path answer is a hit too). */
  cacheHits = 0;
  cacheMisses = 0;
  /** Requests refused by a rate limit, by limit. */
  refusedAnonymous = 0;
  refusedToken = 0;
  refusedSignIn = 0;
  refusedReports = 0;
  /** Webhook attempts by outcome: delivered, failed and retried later, failed for good. */
  webhooksDelivered = 0;
  webhooksRetried = 0;
  webhooksFailed = 0;
}
