// Drives one target with autocannon and boils its result down to the figures the table shows.
import autocannon from 'autocannon';

/**
 * @typedef {object} Load
 * @property {string} method
 * @property {string[]} [paths]  cycled through in order (prebuilt requests: no per-request cost)
 * @property {() => string} [pickPath]  called for every request (for random codes over 1M links)
 * @property {Record<string, string>} [headers]
 * @property {string} [body]
 */

/**
 * @param {string} baseUrl
 * @param {Load} load
 * @param {{ connections: number, duration: number }} options
 */
export async function drive(baseUrl, load, { connections, duration }) {
  /** @type {import('autocannon').Request[]} */
  const requests = load.pickPath
    ? [{ method: load.method, setupRequest: (request) => ({ ...request, path: load.pickPath?.() }) }]
    : (load.paths ?? ['/']).map((path) => ({ method: load.method, path }));
  const latencies = new LatencyRecorder();
  const instance = autocannon({
    url: baseUrl,
    connections,
    duration,
    headers: load.headers,
    body: load.body,
    requests,
  });
  // autocannon's own histogram has whole-millisecond resolution, too coarse for sub-millisecond
  // redirects; every response's time is recorded here in microseconds as well.
  instance.on('response', (_client, _status, _bytes, responseTimeMs) => latencies.record(responseTimeMs));
  const result = await instance;
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]),
  );
  const answered = Object.values(statusCodes).reduce((sum, count) => sum + count, 0);
  return {
    connections,
    duration,
    requestsPerSecond: Math.round(answered / result.duration),
    latencyMs: {
      p50: latencies.percentile(50),
      p90: latencies.percentile(90),
      p99: latencies.percentile(99),
      max: latencies.percentile(100),
    },
    statusCodes,
    answered,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** Response times in 1 µs buckets up to 100 ms; slower ones are kept as they are. */
class LatencyRecorder {
  buckets = new Uint32Array(100_000);
  slow = /** @type {number[]} */ ([]);
  count = 0;

  /** @param {number} ms */
  record(ms) {
    const us = Math.round(ms * 1000);
    if (us < this.buckets.length) this.buckets[us]++;
    else this.slow.push(us);
    this.count++;
  }

  /** @param {number} p  0–100; the result is in milliseconds */
  percentile(p) {
    if (this.count === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (let us = 0; us < this.buckets.length; us++) {
      seen += this.buckets[us];
      if (seen >= rank) return us / 1000;
    }
    this.slow.sort((a, b) => a - b);
    return this.slow[rank - seen - 1] / 1000;
  }
}
