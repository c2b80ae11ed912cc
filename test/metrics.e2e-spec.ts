import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { MetricsServer } from '../src/metrics/metrics.server.js';
import { createAccountWithToken, newClient } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

interface Sample {
  labels?: Record<string, string>;
  value?: string;
  buckets?: Record<string, string>;
  count?: string;
}
interface Family {
  name: string;
  type: string;
  metrics: Sample[];
}

/** One value of a metric family, by labels (every given label must match). */
function valueOf(families: Family[], name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  if (!family) throw new Error(`No metric ${name}`);
  const matches = family.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return matches.reduce((sum, m) => sum + Number(m.value ?? m.count ?? 0), 0);
}

describe('Prometheus metrics on METRICS_PORT', () => {
  let testApp: TestApp;
  let metricsUrl: string;

  beforeAll(async () => {
    testApp = await startTestApp({
      METRICS_PORT: '0',
      TRUST_PROXY: 'true',
      RATE_LIMIT_ANONYMOUS: '2',
      CLICK_FLUSH_INTERVAL_MS: '60000',
    });
    metricsUrl = `http://127.0.0.1:${testApp.app.get(MetricsServer).port}/metrics`;
  });
  afterAll(() => testApp.close());

  let lastText = '';
  async function scrape(): Promise<Family[]> {
    const response = await fetch(metricsUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    lastText = await response.text();
    return parsePrometheusTextFormat(lastText) as Family[];
  }

  /** A histogram's `_count` read from the text (the parser drops a histogram's labels). */
  function timedRequests(text: string, method: string, route: string): number {
    const line = `shortlink_http_request_duration_seconds_count{method="${method}",route="${route}"} `;
    const found = text.split('\n').find((l) => l.startsWith(line));
    return found ? Number(found.slice(line.length)) : 0;
  }

  it('reads as the Prometheus text format, with the process metrics', async () => {
    const families = await scrape();
    const names = families.map((f) => f.name);

    expect(names).toEqual(
      expect.arrayContaining([
        'shortlink_http_requests_total',
        'shortlink_http_request_duration_seconds',
        'shortlink_redirects_total',
        'shortlink_redirect_cache_hits_total',
        'shortlink_redirect_cache_misses_total',
        'shortlink_clicks_pending',
        'shortlink_rate_limit_refusals_total',
        'shortlink_webhook_deliveries_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_seconds',
        'nodejs_heap_size_used_bytes',
        'nodejs_gc_duration_seconds',
      ]),
    );
    expect(families.find((f) => f.name === 'shortlink_http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    expect(families.find((f) => f.name === 'shortlink_clicks_pending')?.type).toBe('GAUGE');
  });

  it('counts requests by route template, redirects by result, cache hits and misses, pending clicks and refusals', async () => {
    const owner = await createAccountWithToken(testApp);
    const created = await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: { url: 'https://example.com/metrics' },
    });
    expect(created.status).toBe(201);
    const { code } = (await created.json()) as { code: string };
    const soon = await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: { url: 'https://example.com/soon-gone', expires_at: new Date(Date.now() + 1500).toISOString() },
    });
    const { code: expiring } = (await soon.json()) as { code: string };
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const before = await scrape();
    const timedBefore = timedRequests(lastText, 'GET', '/api/s');

    // A cold redirect (cache miss, through Fastify), then three cached ones (the fast path) and a HEAD.
    for (let i = 0; i < 4; i++) expect((await testApp.request(`/${code}`, { redirect: 'manual' })).status).toBe(302);
    expect((await testApp.request(`/${code}`, { method: 'HEAD', redirect: 'manual' })).status).toBe(302);
    expect((await testApp.request('/nosuchcode1', { redirect: 'manual' })).status).toBe(404);
    expect((await testApp.request(`/${expiring}`)).status).toBe(410);
    // The anonymous limit is 2 per window: the third is refused.
    const client = newClient();
    for (let i = 0; i < 3; i++) {
      await testApp.request(`/api/s?url=${encodeURIComponent(`https://example.com/${i}`)}`, { headers: client });
    }
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);

    expect(moved('shortlink_http_requests_total', { method: 'POST', route: '/api/links', status: '201' })).toBe(0);
    expect(moved('shortlink_http_requests_total', { method: 'GET', route: '/:code', status: '302' })).toBe(4);
    expect(moved('shortlink_http_requests_total', { method: 'HEAD', route: '/:code', status: '302' })).toBe(1);
    expect(moved('shortlink_http_requests_total', { route: '/:code', status: '404' })).toBe(1);
    expect(moved('shortlink_http_requests_total', { route: '/api/s', status: '429' })).toBe(1);
    expect(timedRequests(lastText, 'GET', '/api/s') - timedBefore).toBe(3);
    expect(moved('shortlink_redirects_total', { result: 'found' })).toBe(5);
    expect(moved('shortlink_redirects_total', { result: 'not_found' })).toBe(1);
    expect(moved('shortlink_redirects_total', { result: 'gone' })).toBe(1);
    // Misses: the first redirect of `code`, the unknown code and the expired link; hits: the rest.
    expect(moved('shortlink_redirect_cache_misses_total')).toBe(3);
    expect(moved('shortlink_redirect_cache_hits_total')).toBe(4);
    expect(moved('shortlink_rate_limit_refusals_total', { limit: 'anonymous' })).toBe(1);
    // The GETs of `code` (the HEAD is not a visit) wait for the next flush (60 s away).
    expect(moved('shortlink_clicks_pending')).toBe(4);
  });

  it('never uses a code or a raw path as a label', async () => {
    for (const path of ['/some-unknown-code', '/no/such/path/here', '/api/links/abc%20def']) {
      await testApp.request(path, { redirect: 'manual' });
    }
    const text = await (await fetch(metricsUrl)).text();

    expect(text).not.toContain('some-unknown-code');
    expect(text).not.toContain('/no/such/path');
    expect(text).toMatch(/route="unmatched"/);
  });

  it('is served on METRICS_PORT only: the public port has no /metrics, the metrics port nothing else', async () => {
    expect((await testApp.request('/metrics')).status).toBe(404);
    expect((await fetch(metricsUrl.replace('/metrics', '/'))).status).toBe(404);
    expect((await fetch(metricsUrl.replace('/metrics', '/health'))).status).toBe(404);
    expect((await fetch(metricsUrl, { method: 'POST' })).status).toBe(404);
  });
});

describe('without METRICS_PORT', () => {
  it('listens on no metrics port', async () => {
    const testApp = await startTestApp();
    try {
      expect(testApp.app.get(MetricsServer).port).toBeUndefined();
    } finally {
      await testApp.close();
    }
  });
});
