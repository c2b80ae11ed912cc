import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ServiceCounters } from './service-counters.js';

/** Route label of a request that matched no route (a 404 of the router): never the raw path. */
export const UNMATCHED_ROUTE = 'unmatched';
/** The redirect route's label, as Fastify names the route (`/:code`). */
export const REDIRECT_ROUTE_LABEL = '/:code';

/**
 * The Prometheus metrics of one instance (prom-client). Labels are bounded: the route is
 * Fastify's route template (`/api/links/:code`), never a code or a URL; methods are the few
 * Node's HTTP parser accepts; statuses are three digits.
 */
export class MetricsRegistry {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly durations: Histogram<'method' | 'route'>;

  constructor(counters: ServiceCounters, pendingClicks: () => number) {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];

    // The fast path's redirects are added from the plain counters at scrape time.
    let reportedGet = 0;
    let reportedHead = 0;
    this.requests = new Counter({
      name: 'shortlink_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status (cached redirects included).',
      labelNames: ['method', 'route', 'status'],
      registers,
      collect() {
        const get = counters.fastRedirectsGet;
        const head = counters.fastRedirectsHead;
        if (get > reportedGet)
          this.inc({ method: 'GET', route: REDIRECT_ROUTE_LABEL, status: '302' }, get - reportedGet);
        if (head > reportedHead) {
          this.inc({ method: 'HEAD', route: REDIRECT_ROUTE_LABEL, status: '302' }, head - reportedHead);
        }
        reportedGet = get;
        reportedHead = head;
      },
    });
    this.durations = new Histogram({
      name: 'shortlink_http_request_duration_seconds',
      help: 'Time from the request to the end of its answer, by method and route template. Cached redirects answered before Fastify are counted in shortlink_http_requests_total but not timed.',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    new Counter({
      name: 'shortlink_redirects_total',
      help: 'Short-link visits (GET and HEAD of /{code}) by result: found (302), not_found (404), gone (410, expired), disabled (410, disabled by the admins).',
      labelNames: ['result'],
      registers,
      collect() {
        this.reset();
        const fast = counters.fastRedirectsGet + counters.fastRedirectsHead;
        this.inc({ result: 'found' }, fast + counters.redirectsFound);
        this.inc({ result: 'not_found' }, counters.redirectsNotFound);
        this.inc({ result: 'gone' }, counters.redirectsGone);
        this.inc({ result: 'disabled' }, counters.redirectsDisabled);
      },
    });
    new Counter({
      name: 'shortlink_redirect_cache_hits_total',
      help: 'Redirects whose link was found in this instance’s cache (no database read).',
      registers,
      collect() {
        this.reset();
        this.inc(counters.fastRedirectsGet + counters.fastRedirectsHead + counters.cacheHits);
      },
    });
    new Counter({
      name: 'shortlink_redirect_cache_misses_total',
      help: 'Redirects that read the database because their code was not cached.',
      registers,
      collect() {
        this.reset();
        this.inc(counters.cacheMisses);
      },
    });
    new Gauge({
      name: 'shortlink_clicks_pending',
      help: 'Clicks counted by this instance and not yet written to the database (written every CLICK_FLUSH_INTERVAL_MS).',
      registers,
      collect() {
        this.set(pendingClicks());
      },
    });
    new Counter({
      name: 'shortlink_rate_limit_refusals_total',
      help: 'Requests answered 429 by a rate limit: anonymous (anonymous creation per IP), token (per API token), sign_in (sign-in, password checks and sign-ups), report (the /report form per IP).',
      labelNames: ['limit'],
      registers,
      collect() {
        this.reset();
        this.inc({ limit: 'anonymous' }, counters.refusedAnonymous);
        this.inc({ limit: 'token' }, counters.refusedToken);
        this.inc({ limit: 'sign_in' }, counters.refusedSignIn);
        this.inc({ limit: 'report' }, counters.refusedReports);
      },
    });
    new Counter({
      name: 'shortlink_webhook_deliveries_total',
      help: 'Webhook attempts made by this instance, by result: delivered (2xx), retried (failed, tried again later), failed (the last retry failed, or the endpoint was disabled).',
      labelNames: ['result'],
      registers,
      collect() {
        this.reset();
        this.inc({ result: 'delivered' }, counters.webhooksDelivered);
        this.inc({ result: 'retried' }, counters.webhooksRetried);
        this.inc({ result: 'failed' }, counters.webhooksFailed);
      },
    });
  }

  /** Counts and times one request that went through Fastify. */
  observeRequest(method: string, route: string | undefined, status: number, seconds: number): void {
    const template = route ?? UNMATCHED_ROUTE;
    this.requests.inc({ method, route: template, status: String(status) });
    this.durations.observe({ method, route: template }, seconds);
  }
}
