import { newClient } from '../support/factories.js';
import { OwnRedisServer } from '../support/processes/redis-server.js';
import { runSource } from '../support/processes/run-source.js';
import { startServerProcess, type ServerProcess } from '../support/processes/server-process.js';
import { createTestDatabase, type TestDatabase } from '../support/database/test-database.js';

const BROWSER =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36';

/**
 * Several instances behind a load balancer, for real: two (later three) server processes on one
 * PostgreSQL database and one Redis that this spec starts itself, so it can also stop it.
 * Runs once (not per database kind): scale-out needs PostgreSQL whatever TEST_DATABASE says.
 */
const ANONYMOUS_LIMIT = 5;

function request(
  instance: ServerProcess,
  path: string,
  init: RequestInit & { json?: unknown } = {},
): Promise<Response> {
  const { json, headers, ...rest } = init;
  return fetch(`${instance.baseUrl}${path}`, {
    redirect: 'manual',
    ...rest,
    headers: json === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: json === undefined ? rest.body : JSON.stringify(json),
    signal: AbortSignal.timeout(10_000),
  });
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('several instances on one PostgreSQL database and one Redis', () => {
  let database: TestDatabase;
  let redis: OwnRedisServer;
  let a: ServerProcess;
  let b: ServerProcess;
  let auth: { 'x-api-key': string };
  const started: ServerProcess[] = [];

  const startInstance = async (env: Record<string, string> = {}): Promise<ServerProcess> => {
    const instance = await startServerProcess({
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      SHORT_BASE_URL: 'https://sl.test',
      RATE_LIMIT_ANONYMOUS: String(ANONYMOUS_LIMIT),
      RATE_LIMIT_TOKEN: '1000000',
      TRUST_PROXY: 'true',
      CLICK_FLUSH_INTERVAL_MS: '60000',
      LOG_LEVEL: 'warn',
      ...env,
    });
    started.push(instance);
    return instance;
  };

  beforeAll(async () => {
    [database, redis] = await Promise.all([createTestDatabase('postgresql'), OwnRedisServer.start()]);
    // The first instance migrates the fresh database; the second finds it ready.
    a = await startInstance();
    b = await startInstance();
    const email = 'scale-out@example.test';
    const cli = (args: string[]) => runSource('src/cli/main.ts', args, { DATABASE_URL: database.url });
    expect((await cli(['account', 'create', email])).status).toBe(0);
    const token = await cli(['token', 'create', email]);
    expect(token.status).toBe(0);
    auth = { 'x-api-key': token.stdout.trim() };
  }, 120_000);

  afterAll(async () => {
    await Promise.all(started.map((instance) => instance.stop()));
    await redis?.stop();
    await database?.drop();
  });

  async function createLink(instance: ServerProcess, url: string): Promise<string> {
    const response = await request(instance, '/api/links', { method: 'POST', headers: auth, json: { url } });
    expect(response.status).toBe(201);
    return ((await response.json()) as { code: string }).code;
  }

  async function targetOn(instance: ServerProcess, code: string): Promise<string | number> {
    const response = await request(instance, `/${code}`);
    return response.status === 302 ? response.headers.get('location')! : response.status;
  }

  it('shares the anonymous limit: 5 spread over both instances, the 6th is refused', async () => {
    const client = newClient();
    const instances = [a, b, a, b, a, b];

    const responses = [];
    for (const [index, instance] of instances.entries()) {
      const path = index % 2 ? '/api/s?url=https%3A%2F%2Fexample.com%2F' : '/api/links';
      responses.push(
        await request(
          instance,
          path,
          index % 2 ? { headers: client } : { method: 'POST', headers: client, json: { url: 'https://example.com/' } },
        ),
      );
    }

    expect(responses.map((response) => response.status)).toEqual([201, 200, 201, 200, 201, 429]);
    expect(responses.slice(0, 5).map((response) => response.headers.get('x-ratelimit-remaining'))).toEqual([
      '4',
      '3',
      '2',
      '1',
      '0',
    ]);
    expect(await responses[5].text()).toBe('error: rate_limited');
  });

  it('redirects to the new target on every instance as soon as a PUT is answered', async () => {
    const code = await createLink(a, 'https://example.com/v0');
    for (let version = 1; version <= 25; version++) {
      // Both instances have the current target cached before the change.
      expect(await targetOn(b, code)).toBe(`https://example.com/v${version - 1}`);
      expect(await targetOn(a, code)).toBe(`https://example.com/v${version - 1}`);

      const put = await request(a, `/api/links/${code}`, {
        method: 'PUT',
        headers: auth,
        json: { url: `https://example.com/v${version}` },
      });
      expect(put.status).toBe(200);

      expect(await targetOn(b, code)).toBe(`https://example.com/v${version}`);
    }
  });

  it('answers 404 on every instance as soon as a DELETE is answered', async () => {
    for (let round = 0; round < 10; round++) {
      const code = await createLink(b, `https://example.com/doomed-${round}`);
      expect(await targetOn(a, code)).toBe(`https://example.com/doomed-${round}`);
      expect(await targetOn(b, code)).toBe(`https://example.com/doomed-${round}`);

      expect((await request(b, `/api/links/${code}`, { method: 'DELETE', headers: auth })).status).toBe(204);

      expect(await targetOn(a, code)).toBe(404);
      expect(await targetOn(b, code)).toBe(404);
    }
  });

  it('keeps every acknowledged creation and click when an instance stops under load', async () => {
    // Clicks counted by B but not yet flushed (the flush interval is a minute): shutdown writes them.
    const clicked = await createLink(a, 'https://example.com/clicked');
    for (let click = 0; click < 7; click++) expect(await targetOn(b, clicked)).toBe('https://example.com/clicked');

    const acknowledged: string[] = [];
    const acknowledgedBy = new Map<ServerProcess, number>();
    const unexpected: string[] = [];
    const pool = [a, b];
    // The load runs until 2.5 s after B has stopped (set below).
    let deadline = Number.POSITIVE_INFINITY;
    const worker = async (offset: number) => {
      for (let call = offset; Date.now() < deadline; call++) {
        const instance = pool[call % pool.length];
        let response: Response;
        try {
          response = await request(instance, '/api/links', {
            method: 'POST',
            headers: auth,
            json: { url: `https://example.com/load/${offset}/${call}` },
          });
        } catch {
          // Refused or cut off, so not acknowledged. What a load balancer does: take the
          // instance out of rotation and send the next request elsewhere.
          const index = pool.indexOf(instance);
          if (index >= 0 && pool.length > 1) pool.splice(index, 1);
          continue;
        }
        if (response.status !== 201) {
          unexpected.push(`${response.status} ${await response.text()}`);
          continue;
        }
        acknowledged.push(((await response.json()) as { code: string }).code);
        acknowledgedBy.set(instance, (acknowledgedBy.get(instance) ?? 0) + 1);
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, (_, offset) => worker(offset)));
    // B stops under load once both instances have done real work: 1.5 s in at the earliest, later
    // when a loaded machine answers slowly (a CI run once saw B acknowledge 14 in 1.5 s).
    const loadStarted = Date.now();
    let stopped: Awaited<ReturnType<ServerProcess['stop']>>;
    try {
      await eventually(() =>
        Promise.resolve(
          Date.now() - loadStarted >= 1500 && (acknowledgedBy.get(a) ?? 0) > 20 && (acknowledgedBy.get(b) ?? 0) > 20,
        ),
      );
      stopped = await b.stop();
    } finally {
      deadline = Date.now() + 2500;
    }
    await load;

    // Every request that reached an instance was answered properly, and both did real work.
    expect(unexpected).toEqual([]);
    // Nest re-raises the signal once it has closed the application.
    expect(stopped.status === 0 || stopped.signal === 'SIGTERM').toBe(true);
    expect(acknowledgedBy.get(a)).toBeGreaterThan(20);
    expect(acknowledgedBy.get(b)).toBeGreaterThan(20);
    for (const code of acknowledged) {
      expect((await request(a, `/api/links/${code}`, { headers: auth })).status).toBe(200);
    }
    const link = await request(a, `/api/links/${clicked}`, { headers: auth });
    expect(((await link.json()) as { clicks: number }).clicks).toBe(7);

    // A replacement joins and serves at once, sharing the counters and the caches' invalidations.
    b = await startInstance();
    expect(await targetOn(b, clicked)).toBe('https://example.com/clicked');
  }, 90_000);

  it('adds up the daily clicks and referrers that several instances count for one link', async () => {
    const fast = { CLICK_FLUSH_INTERVAL_MS: '100' };
    const [c, d] = await Promise.all([startInstance(fast), startInstance(fast)]);
    const code = await createLink(a, 'https://example.com/counted-twice');
    const visit = async (instance: ServerProcess, referer: string) => {
      // A person's browser: fetch's own user agent (`node`) is a script's, counted as a bot.
      const response = await request(instance, `/${code}`, { headers: { referer, 'user-agent': BROWSER } });
      expect(response.status).toBe(302);
    };
    // Interleaved, so that both instances flush the same day's rows again and again.
    for (let round = 0; round < 5; round++) {
      await Promise.all([visit(c, 'https://one.example/a'), visit(d, 'https://two.example/b')]);
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    await visit(d, 'https://two.example/c');

    const today = new Date().toISOString().slice(0, 10);
    let body: { total: number; days: Array<{ date: string; clicks: number }>; referrers: unknown[] } | undefined;
    await eventually(async () => {
      const response = await request(c, `/api/links/${code}/clicks?days=2`, { headers: auth });
      body = (await response.json()) as typeof body;
      return body?.total === 11;
    });
    expect(body?.days.at(-1)).toEqual({ date: today, clicks: 11, bots: 0 });
    expect(body?.referrers).toEqual([
      { host: 'two.example', clicks: 6 },
      { host: 'one.example', clicks: 5 },
    ]);
    await Promise.all([c.stop(), d.stop()]);
  }, 60_000);

  it('keeps serving while Redis is down, and shares limits again once it is back', async () => {
    const code = await createLink(a, 'https://example.com/before-outage');
    expect(await targetOn(b, code)).toBe('https://example.com/before-outage');

    await redis.stop();

    const started = Date.now();
    const client = newClient();
    expect((await request(a, '/api/s?url=https%3A%2F%2Fexample.com%2F', { headers: client })).status).toBe(200);
    expect(
      (await request(b, '/api/links', { method: 'POST', headers: client, json: { url: 'https://example.com/' } }))
        .status,
    ).toBe(201);
    expect(await targetOn(b, code)).toBe('https://example.com/before-outage');
    const created = await createLink(b, 'https://example.com/during-outage');
    expect(await targetOn(a, created)).toBe('https://example.com/during-outage');
    // No instance can hear invalidations now, so none trusts its cache: a PUT still applies everywhere.
    expect(
      (
        await request(a, `/api/links/${code}`, {
          method: 'PUT',
          headers: auth,
          json: { url: 'https://example.com/during' },
        })
      ).status,
    ).toBe(200);
    expect(await targetOn(b, code)).toBe('https://example.com/during');
    expect(await targetOn(a, code)).toBe('https://example.com/during');
    expect(Date.now() - started).toBeLessThan(5000);
    // Limits still hold, per instance.
    const limited = newClient();
    const statuses = [];
    for (let call = 0; call <= ANONYMOUS_LIMIT; call++) {
      statuses.push((await request(a, '/api/s?url=https%3A%2F%2Fexample.com%2F', { headers: limited })).status);
    }
    expect(statuses.at(-1)).toBe(429);

    await redis.resume();

    // Both instances reconnect on their own: counters are shared again.
    await eventually(async () => {
      const probe = newClient();
      const first = await request(a, '/api/s?url=https%3A%2F%2Fexample.com%2F', { headers: probe });
      const second = await request(b, '/api/s?url=https%3A%2F%2Fexample.com%2F', { headers: probe });
      return first.headers.get('x-ratelimit-remaining') === '4' && second.headers.get('x-ratelimit-remaining') === '3';
    });
    // And caches are trusted and invalidated through Redis again.
    expect(await targetOn(b, code)).toBe('https://example.com/during');
    expect(
      (
        await request(a, `/api/links/${code}`, {
          method: 'PUT',
          headers: auth,
          json: { url: 'https://example.com/after' },
        })
      ).status,
    ).toBe(200);
    expect(await targetOn(b, code)).toBe('https://example.com/after');
  });
});
