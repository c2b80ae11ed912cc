#!/usr/bin/env node
// What a link's rules (issue 31) cost a redirect, on the built service (SQLite, its cache on):
// the same instance answers, side by side in interleaved rounds,
//   - plain links: the fast path (answered from the cache before Fastify);
//   - links with device targets, visited from an iPhone and from a desktop browser: the redirect
//     route (Fastify, Nest, the user agent's operating system read through a cache);
//   - password-protected links: their password form (a rendered page).
// Each row is the service's CPU per answered request and the requests per second at
// --connections connections. The links are cached before the rounds start, so no row reads the
// database.
//
// Usage: npm run build && node bench/studies/link-rules.mjs [--rounds 3] [--duration 5] [--connections 50]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { drive } from '../lib/load.mjs';
import { cpuMicros, freePort, startProcess, waitForHttp } from '../lib/processes.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    links: { type: 'string', default: '100' },
  },
});
const ROUNDS = Number(flags.rounds);
const DURATION = Number(flags.duration);
const CONNECTIONS = Number(flags.connections);
const LINKS = Number(flags.links);

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const dir = mkdtempSync(join(tmpdir(), 'shortlink-link-rules-'));
const port = await freePort();
const env = {
  NODE_ENV: 'production',
  DATABASE_URL: `file:${join(dir, 'bench.db')}`,
  HOST: '127.0.0.1',
  PORT: String(port),
  SHORT_BASE_URL: `http://127.0.0.1:${port}`,
  LOG_LEVEL: 'warn',
  RATE_LIMIT_ANONYMOUS: '1000000000',
  RATE_LIMIT_TOKEN: '1000000000',
};
const service = startProcess('shortlink', [join(ROOT, 'dist', 'src', 'main.js')], { cwd: ROOT, env });
try {
  await waitForHttp(service, `http://127.0.0.1:${port}/health`);
  const cli = (...args) =>
    execFileSync(process.execPath, [join(ROOT, 'dist', 'src', 'cli', 'main.js'), ...args], {
      env: { ...process.env, ...env },
    })
      .toString()
      .trim();
  cli('account', 'create', 'bench@example.test');
  const token = cli('token', 'create', 'bench@example.test');

  const make = async (fields, count = LINKS) => {
    const codes = [];
    for (let i = 0; i < count; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/api/links`, {
        method: 'POST',
        headers: { 'x-api-key': token, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `https://example.com/${i}`, ...fields }),
      });
      if (response.status !== 201) throw new Error(`creating a link: ${response.status} ${await response.text()}`);
      codes.push(/** @type {{ code: string }} */ (await response.json()).code);
    }
    return codes;
  };
  const plain = await make({});
  const targeted = await make({ ios_url: 'https://apps.apple.com/app/id1', android_url: 'https://play.google.com/x' });
  // Each password is hashed on purpose slowly (a few hundred milliseconds): fewer protected links.
  const protectedLinks = await make({ password: 'open sesame' }, 10);
  const loads = {
    'plain link (fast path)': { codes: plain, userAgent: DESKTOP, expected: '302' },
    'device targets, iPhone': { codes: targeted, userAgent: IPHONE, expected: '302' },
    'device targets, desktop': { codes: targeted, userAgent: DESKTOP, expected: '302' },
    'password form (GET)': { codes: protectedLinks, userAgent: DESKTOP, expected: '200' },
  };
  // Cached first: every row measures answers from the cache.
  for (const { codes, userAgent } of Object.values(loads)) {
    for (const code of codes)
      await fetch(`http://127.0.0.1:${port}/${code}`, { redirect: 'manual', headers: { 'user-agent': userAgent } });
  }

  /** @type {Record<string, { cpu: number[], rps: number[] }>} */
  const results = {};
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, { codes, userAgent, expected }] of Object.entries(loads)) {
      const load = { method: 'GET', paths: codes.map((code) => `/${code}`), headers: { 'user-agent': userAgent } };
      const cpuBefore = cpuMicros(service.pid);
      const result = await drive(`http://127.0.0.1:${port}`, load, { connections: CONNECTIONS, duration: DURATION });
      const cpu = /** @type {number} */ (cpuMicros(service.pid)) - /** @type {number} */ (cpuBefore);
      const answered = result.statusCodes[expected] ?? 0;
      if (answered !== result.answered) throw new Error(`${name}: ${JSON.stringify(result.statusCodes)}`);
      (results[name] ??= { cpu: [], rps: [] }).cpu.push(cpu / answered);
      results[name].rps.push(result.requestsPerSecond);
      console.error(`round ${round}: ${name}: ${(cpu / answered).toFixed(1)} µs, ${result.requestsPerSecond} req/s`);
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log('| redirect | CPU per request (median, spread) | requests/s (median) |');
  console.log('| --- | --- | --- |');
  for (const [name, { cpu, rps }] of Object.entries(results)) {
    console.log(
      `| ${name} | ${median(cpu).toFixed(1)} µs (${Math.min(...cpu).toFixed(1)}–${Math.max(...cpu).toFixed(1)}) | ${median(rps)} |`,
    );
  }
} finally {
  await service.stop('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
