#!/usr/bin/env node
// Instructions per cached redirect: shortlink against bare node:http, counted by valgrind's
// callgrind. The benchmark's ratio of requests per second (and its CPU time per request) moves
// with this shared machine's load by more than the 0.80 × target's margin from one run to the
// next; a count of instructions does not depend on what else the machine is doing. Bare node:http's
// repeats within 3 %. The service's rounds still scatter, by 30,000-40,000 instructions a request
// between a low round and a high one, from work that runs in one window and not in another (not
// identified yet; docs/performance.md, "Cached redirects counted in instructions"): compare
// several rounds, and builds by their low rounds.
//
// Each server runs under callgrind with its instrumentation off while it starts and is warmed up
// (V8 compiles the hot path as it would without valgrind), then on for exactly --requests cached
// redirects at --connections connections, cycling over --links codes. Counted in user space only:
// the kernel's work for the sockets is not in it, and is alike for every server (one read and one
// write a request). Two figures per server: the main thread, where requests are answered, and all
// threads.
//
// Under valgrind a request takes ~50 times as long, so work the service does on a clock (the click
// flush every second, the click log's fold, cache expiry) would be counted ~50 times over per
// request. The service is started with its clock-driven work as rare as its settings allow (a
// flush a minute, entries cached a day), and the main thread's figure is the one to compare: the
// writer thread's work is almost all per flush, not per request.
//
// Usage: npm run build && node bench/studies/redirect-instructions.mjs [--rounds 2] [--requests 10000]
//          [--warmup 20000] [--connections 10] [--links 1000] [--build <another checkout, built>]...
//          [--windows 1] [--keep <dir>] [--without-node-http]
// --windows counts that many windows one after another in each started server (each a figure of its
// own); --keep copies every window's dumps to <dir> for callgrind_annotate.
import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { seededCode } from '../lib/codes.mjs';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, waitForHttp } from '../lib/processes.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2' },
    requests: { type: 'string', default: '10000' },
    warmup: { type: 'string', default: '20000' },
    connections: { type: 'string', default: '10' },
    links: { type: 'string', default: '1000' },
    build: { type: 'string', multiple: true, default: [] },
    windows: { type: 'string', default: '1' },
    keep: { type: 'string' },
    'without-node-http': { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(flags.rounds);
const REQUESTS = Number(flags.requests);
const WARMUP = Number(flags.warmup);
const CONNECTIONS = Number(flags.connections);
const LINKS = Number(flags.links);
const BUILDS = [ROOT, ...flags.build.map((path) => resolve(path))];
const WINDOWS = Number(flags.windows);
/** Where each window's dumps are kept for callgrind_annotate (they are deleted otherwise). */
const KEEP = flags.keep === undefined ? undefined : resolve(flags.keep);
if (KEEP) mkdirSync(KEEP, { recursive: true });

execFileSync('valgrind', ['--version']);

/**
 * A node process under callgrind, instrumentation off until `count` turns it on.
 * @param {string[]} args  node's arguments
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv }} options
 */
function underCallgrind(args, options) {
  const dir = mkdtempSync(join(tmpdir(), 'shortlink-callgrind-'));
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      // V8 writes the machine code it compiles into anonymous memory and patches it in place.
      '--smc-check=all-non-file',
      // A dump per thread (callgrind.out.<n>-<thread>; thread 1 is the main thread).
      '--separate-threads=yes',
      `--callgrind-out-file=${join(dir, 'callgrind.out')}`,
      process.execPath,
      ...args,
    ],
    { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-8000)));
  const exited = new Promise((done) => child.once('exit', done));
  const dumps = () => readdirSync(dir).filter((file) => /^callgrind\.out\.\d+-\d+$/.test(file));
  // vgdb finds the process by a pipe named after the HOST variable valgrind saw (the service's is its
  // listening address).
  const controlEnv = { ...process.env, HOST: options.env?.HOST ?? process.env.HOST };
  const control = (...flag) =>
    execFileSync('callgrind_control', [...flag, String(child.pid)], { stdio: 'pipe', env: controlEnv });
  return {
    name: args.at(-1) ?? 'node',
    pid: /** @type {number} */ (child.pid),
    child,
    exited,
    stderr: () => stderr,
    /**
     * Instructions the process runs while `work` does: its main thread's and all threads'. With
     * `keepAs`, the dumps are copied to KEEP as `<keepAs>-<thread>`.
     */
    async count(work, keepAs) {
      control('--instr=on');
      control('--zero');
      await work();
      const earlier = new Set(dumps());
      control('--dump');
      control('--instr=off');
      // callgrind writes the dumps (one a thread) when the process next runs its code: read them
      // once the main thread's is there, and a second later for the others.
      for (let waited = 0; waited < 120_000; waited += 500) {
        const written = dumps().filter((name) => !earlier.has(name));
        if (written.some((name) => name.endsWith('-01'))) {
          await sleep(1000);
          let all = 0;
          let main = 0;
          for (const file of dumps().filter((name) => !earlier.has(name))) {
            const totals = /^(?:totals|summary): (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'));
            if (!totals) throw new Error(`no totals in ${file}`);
            all += Number(totals[1]);
            if (KEEP && keepAs) copyFileSync(join(dir, file), join(KEEP, `${keepAs}-${file.split('-').at(-1)}`));
            if (file.endsWith('-01')) main = Number(totals[1]);
          }
          return { main, all };
        }
        await sleep(500);
      }
      throw new Error(`callgrind wrote no dump in ${dir}`);
    },
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Under valgrind a start takes a minute or more.
const START_TIMEOUT_MS = 15 * 60_000;

/** `amount` GET requests cycling over `paths`; fails unless every one is answered 302. */
async function redirects(port, paths, amount) {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    amount,
    timeout: 120,
    requests: paths.map((path) => ({ method: 'GET', path })),
  });
  const redirected = result.statusCodeStats?.['302']?.count ?? 0;
  if (redirected !== amount || result.errors > 0) {
    throw new Error(`${redirected} of ${amount} answered 302, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
}

/** Bare node:http answering from a Map of the benchmark's seeded codes. */
async function nodeHttp() {
  const port = await freePort();
  const proc = underCallgrind([join(ROOT, 'bench', 'baselines', 'node-http.mjs'), String(port), String(LINKS)], {});
  await waitForHttp(proc, `http://127.0.0.1:${port}/${seededCode(0)}`, {
    timeoutMs: START_TIMEOUT_MS,
    ready: () => true,
  });
  return { name: 'node:http', proc, port, paths: Array.from({ length: LINKS }, (_, i) => `/${seededCode(i)}`) };
}

/** The service built in `root`, started as its start scripts start it, on a new SQLite file of LINKS links. */
async function shortlink(root) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'shortlink-instructions-'));
  const startFile = join(root, 'dist', 'src', 'node-flags.js');
  const { NODE_FLAGS = [], START_ENV = {} } = existsSync(startFile) ? await import(pathToFileURL(startFile).href) : {};
  const proc = underCallgrind([...NODE_FLAGS, join(root, 'dist', 'src', 'main.js')], {
    cwd: root,
    env: {
      ...START_ENV,
      NODE_ENV: 'production',
      DATABASE_URL: `file:${join(dir, 'bench.db')}`,
      HOST: '127.0.0.1',
      PORT: String(port),
      SHORT_BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'info',
      RATE_LIMIT_ANONYMOUS: '1000000000',
      RATE_LIMIT_TOKEN: '1000000000',
      // The clock-driven work as rare as the settings allow (see the top of this file).
      CLICK_FLUSH_INTERVAL_MS: '60000',
      REDIRECT_CACHE_TTL_SECONDS: '86400',
    },
  });
  await waitForHttp(proc, `http://127.0.0.1:${port}/health`, { timeoutMs: START_TIMEOUT_MS });
  const paths = [];
  for (let i = 0; i < LINKS; i++) {
    const response = await fetch(`http://127.0.0.1:${port}/api/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `https://example.com/articles/${i}` }),
    });
    if (response.status !== 201) throw new Error(`creating a link: ${response.status} ${await response.text()}`);
    paths.push(`/${/** @type {{ code: string }} */ (await response.json()).code}`);
  }
  const name = root === ROOT ? 'shortlink' : `shortlink (${root})`;
  return { name, proc, port, paths, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const log = (message) => process.stderr.write(`${message}\n`);
/** @type {Map<string, { main: number, all: number }[]>} */
const perRequest = new Map();
for (let round = 1; round <= ROUNDS; round++) {
  const starters = [
    ...(flags['without-node-http'] ? [] : [() => nodeHttp()]),
    ...BUILDS.map((root) => () => shortlink(root)),
  ];
  // Every other round in reverse order, as the benchmark does.
  if (round % 2 === 0) starters.reverse();
  for (const start of starters) {
    const server = await start();
    try {
      await redirects(server.port, server.paths, WARMUP);
      for (let window = 1; window <= WINDOWS; window++) {
        const keepAs = `${server.name.replace(/[^\w.-]+/g, '_')}-round${round}-window${window}`;
        const { main, all } = await server.proc.count(() => redirects(server.port, server.paths, REQUESTS), keepAs);
        const each = { main: main / REQUESTS, all: all / REQUESTS };
        perRequest.set(server.name, [...(perRequest.get(server.name) ?? []), each]);
        const format = (value) => Math.round(value).toLocaleString('en');
        log(
          `round ${round}, window ${window}: ${server.name}: ${format(each.main)} instructions a cached redirect (all threads ${format(each.all)})`,
        );
      }
    } finally {
      await server.proc.stop();
      server.cleanup?.();
    }
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const format = (value) => Math.round(value).toLocaleString('en');
const baseline = perRequest.get('node:http') ?? [];
const baseMain = median(baseline.map(({ main }) => main));
const baseAll = median(baseline.map(({ all }) => all));
const ratio = (value, base) => (base === undefined ? '—' : (value / base).toFixed(2));
console.log(
  '| server | main thread, instructions a redirect (rounds) | × node:http | all threads (rounds) | × node:http |',
);
console.log('| --- | --- | --- | --- | --- |');
for (const [name, values] of perRequest) {
  const main = values.map((value) => value.main);
  const all = values.map((value) => value.all);
  console.log(
    `| ${name} | ${main.map(format).join(', ')} | ${ratio(median(main), baseMain)} | ${all.map(format).join(', ')} | ${ratio(median(all), baseAll)} |`,
  );
}
