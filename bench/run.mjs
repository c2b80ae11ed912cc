#!/usr/bin/env node
// `npm run bench`: measures shortlink's redirect and API paths beside bare node:http and bare
// Fastify on the same machine, in the same run, and prints one table (also written to
// bench/results/latest.json). Plain ESM JavaScript so Node runs it without a build step; the
// service itself is the real build in dist/ (`npm run bench` runs `nest build` first).
//
//   node bench/run.mjs [--links 100000] [--duration 10] [--connections 100] [--postgres] [--smoke]
//
// See the README's Performance section or `--help` for every flag.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { seededCode, seededUrl, spreadIndexes } from './lib/codes.mjs';
import { drive } from './lib/load.mjs';
import {
  cpuMicros,
  cpuSpentBetween,
  freePort,
  postgresCpuSnapshot,
  sampleRss,
  startProcess,
  waitForHttp,
} from './lib/processes.mjs';
import {
  addAccount,
  BENCH_TAG,
  BENCH_TENTH_TAG,
  CLICK_HISTORY_DAYS,
  OWNED_LINKS,
  benchAccount,
  linkTotals,
  seedPostgres,
  seedSqlite,
} from './lib/seed.mjs';
import { formatChangeFeedTable, formatFlatCostTable, formatTable, totalCpu } from './lib/report.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SERVICE_ENTRY = join(ROOT, 'dist', 'src', 'main.js');
const CLI_ENTRY = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const RESULTS_FILE = join(ROOT, 'bench', 'results', 'latest.json');
const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/** Codes the hit scenario cycles through: "popular links", all within the redirect cache. */
const HOT_CODES = 1000;
/**
 * The cached-redirect target: this build's throughput at least this × bare node:http's, judged
 * on the median of the rounds' ratios (each round measures both side by side).
 */
const HIT_TARGET = 0.8;
/**
 * Rows whose target is a ratio measured side by side (cached redirects against node:http,
 * creation with a webhook against without) run at least this many interleaved rounds whatever
 * --runs says: one round moved either ratio by more than its target's margin from run to run on
 * this shared machine. Not under --smoke, which judges no target.
 */
const RATIO_MIN_RUNS = 3;
/** Connections of the API scenarios: the creation target is stated at 10 connections. */
const API_CONNECTIONS = 10;
/**
 * The miss scenario runs against an instance whose redirect cache is off, so every request is
 * a database lookup whatever N is (with a cache, a small N would end up entirely cached).
 */
const MISS_SERVICE_ENV = { REDIRECT_CACHE_SIZE: '0' };
/** A link's clicks over a year of daily, referrer and label rows: at most this much service CPU per call (µs). */
const CLICKS_CPU_TARGET_US = 2000;
/** Items per call of the bulk scenario: the most one call takes. */
const BULK_ITEMS = 1000;
/**
 * The memory budget: at up to this many links, no row may see this build's service above this
 * peak RSS (self-hosters run it on 512 MiB machines, beside a database). Not enforced by --smoke,
 * like the other budgets: its rows are too short for the heap to reach its working size.
 */
const MEMORY_BUDGET = { links: 100_000, peakMiB: 200 };
/** The webhook scenarios' instance: its receiver is on loopback. */
const WEBHOOK_SERVICE_ENV = { WEBHOOK_ALLOW_PRIVATE: 'true' };
/**
 * Issue 32: creating links with one endpoint subscribed costs at most this × without (CPU of the
 * API instance: judged on the instance that only stores the messages, beside a worker process).
 */
const WEBHOOK_CPU_TARGET = 1.1;
/** The drain scenario: this many pending messages delivered to a local receiver within DRAIN_TARGET_MS. */
const DRAIN_MESSAGES = 1000;
const DRAIN_TARGET_MS = 10_000;
/** After a load, the requests autocannon left under way are answered within this long. */
const QUIET_MS = 50;
/**
 * `--study`: the CPU per message the CPU-only sidecar burns, about the worker's and the receiver's
 * together (110–160 µs and 31–38 µs a message when measured, docs/performance.md, Webhooks).
 */
const STUDY_BURN_US = 175;
/** The webhook scenarios' target whose instance stores only, beside a worker process. */
const WORKER_TARGET = 'shortlink, delivery off + worker';
/** The same instance with no worker: what storing the message costs, with nothing delivered on the machine. */
const STORING_TARGET = 'shortlink, delivery off, no worker';
/** The webhook scenario's two rows. */
const WEBHOOK_ROWS = {
  without: 'create with a token, no webhook',
  with: 'create with a token, one webhook',
};
/**
 * Issue 55's change feed, two instances on one database and no Redis: an idle serving instance
 * spends at most this share of one core (its every timer, the feed's polling or listening
 * included), and a change through one instance's API is answered by the other within
 * CHANGE_VISIBLE_TARGET_MS, judged on the slowest of every edit of every run.
 */
const IDLE_CPU_TARGET_PERCENT = 1;
const CHANGE_VISIBLE_TARGET_MS = 1000;
/** Edits per run of the change-feed scenario (each timed until the other instance answers it). */
const CHANGE_EDITS = 20;
/** Limits high enough never to trigger: the benchmark measures the work, not the 429s. */
const UNLIMITED_ENV = { RATE_LIMIT_ANONYMOUS: '1000000000', RATE_LIMIT_TOKEN: '1000000000' };

const HELP = `Usage: node bench/run.mjs [options]   (npm run bench -- [options] builds first)

  --links N[,N…]     links seeded into a fresh database (default 100000; e.g. 10000,1000000:
                     with two or more, the smallest and largest are also compared interleaved)
  --duration S       seconds measured per scenario and target (default 10)
  --warmup S         seconds of unmeasured load before each measurement (default 2)
  --connections C    concurrent connections of the redirect scenarios (default 100)
  --runs R           repeat each measurement R times and report the median (default 1; the
                     redirect hit and webhook rows at least 3 times: their targets are ratios)
  --postgres         also benchmark the service on PostgreSQL (BENCH_POSTGRES_URL, default
                     ${POSTGRES_ADMIN_URL})
  --scenarios LIST   subset of: hit,miss,create,quick,bulk,list,search,tag,tagsearch,page,pagesearch,clicks,overview,
                     webhooks,drain,changes (default all; changes: two instances without Redis, the
                     idle one's CPU and how soon one answers a change made through the other's API
                     or with \`shortlink account disable\`/\`enable\`)
  --owned N          links of the benchmark account, which list and search page through
                     (default 10000, at most --links)
  --before DIR       a checkout of an earlier build (with its dist/): every scenario then also
                     runs against it, on a database of its own seeded alike, interleaved (for a
                     build whose API lacks a scenario, leave it out with --scenarios)
  --before-node PATH the node binary that migrates and runs the --before build (default the one
                     running the benchmark): the same scenarios on two Node.js versions
  --log-level L      LOG_LEVEL of the service (default info, as in production)
  --cpu-prof DIR     run every service instance with node --cpu-prof: a .cpuprofile per thread
                     in DIR when it stops (open in Chrome DevTools; the figures then include
                     the profiler's own cost)
  --study            webhooks on SQLite, what a worker beside the instance costs it: the judged
                     instance's creations with the webhook once more with its worker held up (the
                     receiver answers nothing during those rounds), and two more instances with
                     delivery off, one beside a process that claims and records their messages as
                     the worker does but sends nothing (its commits), one beside a process that
                     burns the worker's and the receiver's CPU per message and commits nothing
                     (bench/studies/webhook-*.mjs)
  --smoke            CI check that the benchmark works: 500 and 1000 links, 1 s per scenario, 10 connections
  --help             this text`;

const SCENARIOS = {
  hit: 'redirect hit',
  miss: 'redirect miss',
  create: 'anonymous create',
  quick: 'quick shorten',
  bulk: 'bulk create, 1000 per call',
  list: 'authenticated list',
  search: 'search, 20 of the matches',
  tag: 'list by tag (every link has it)',
  tagsearch: 'search within a tag',
  page: 'dashboard links page',
  pagesearch: 'dashboard links page, searching',
  clicks: 'link clicks (366 days)',
  overview: 'account clicks (30 days)',
  webhooks: 'create with a token, one webhook vs none',
  drain: '1,000 pending webhook messages delivered',
  changes: 'link changes between two instances, no Redis',
};

function readOptions() {
  const { values } = parseArgs({
    options: {
      links: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      runs: { type: 'string' },
      postgres: { type: 'boolean', default: false },
      scenarios: { type: 'string' },
      'log-level': { type: 'string' },
      smoke: { type: 'boolean', default: false },
      owned: { type: 'string' },
      before: { type: 'string' },
      'before-node': { type: 'string' },
      'cpu-prof': { type: 'string' },
      study: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const smoke = values.smoke;
  const number = (name, fallback, min) => {
    const raw = values[name];
    const value = raw === undefined ? fallback : Number(raw);
    if (!Number.isFinite(value) || value < min) throw new Error(`--${name} must be a number ≥ ${min}`);
    return value;
  };
  const links = (values.links ?? (smoke ? '500,1000' : '100000')).split(',').map((n) => Number(n.replaceAll('_', '')));
  if (links.some((n) => !Number.isInteger(n) || n < 1 || n > 20_000_000))
    throw new Error('--links must be integers between 1 and 20000000');
  const scenarios = (values.scenarios ?? Object.keys(SCENARIOS).join(',')).split(',');
  for (const id of scenarios)
    if (!(id in SCENARIOS)) throw new Error(`unknown scenario "${id}" (use ${Object.keys(SCENARIOS).join(',')})`);
  return {
    links,
    duration: number('duration', smoke ? 1 : 10, 0.5),
    warmup: number('warmup', smoke ? 0.5 : 2, 0),
    connections: number('connections', smoke ? 10 : 100, 1),
    runs: number('runs', 1, 1),
    databases: values.postgres ? ['sqlite', 'postgresql'] : ['sqlite'],
    scenarios: new Set(scenarios),
    logLevel: values['log-level'] ?? 'info',
    owned: number('owned', OWNED_LINKS, 0),
    before: values.before ? resolve(values.before) : undefined,
    beforeNode: values['before-node'] ? resolve(values['before-node']) : undefined,
    cpuProf: values['cpu-prof'] ? resolve(values['cpu-prof']) : undefined,
    study: values.study,
    smoke,
  };
}

const log = (message) => process.stderr.write(`${message}\n`);
const execFileAsync = promisify(execFile);

/**
 * Measures one load against several targets `runs` times, interleaved (A B C, C B A, A B C, …) so
 * that a change in the machine's load hits every target alike and the ratios stay meaningful. Each
 * target is warmed up first; each keeps its run with the median throughput, and the peak RSS
 * of all its runs. A target with a `load` of its own is driven with it instead of `load`. A target
 * with a `settle` is given it after each load, before its CPU is read: work the requests left
 * behind (webhook deliveries) is then counted with them, and not in the next target's run. A
 * target with a `sidecarPid` has that process's CPU measured apart (`sidecar`: the webhook worker
 * beside an instance with delivery off).
 * @param {{ name: string, port: number, pid: number, sidecarPid?: number, load?: any, settle?: (result: any) => Promise<void> }[]} targets
 */
async function measureInterleaved(options, targets, load, connections) {
  const loadOf = (target) => target.load ?? load;
  const results = targets.map(() => ({ runs: /** @type {any[]} */ ([]), warmup: /** @type {any} */ (undefined) }));
  for (const [i, target] of targets.entries()) {
    if (options.warmup > 0) {
      results[i].warmup = await drive(`http://127.0.0.1:${target.port}`, loadOf(target), {
        connections,
        duration: options.warmup,
      });
      await target.settle?.(results[i].warmup);
    }
  }
  for (let run = 0; run < options.runs; run++) {
    // Every other run goes in reverse order (A B C, C B A, …), so no target always runs first,
    // or always right after the same other target's load.
    const order = [...targets.entries()];
    if (run % 2 === 1) order.reverse();
    for (const [i, target] of order) {
      const rss = sampleRss(target.pid);
      await target.hold?.();
      const cpuBefore = cpuReading(target);
      const result = await drive(`http://127.0.0.1:${target.port}`, loadOf(target), {
        connections,
        duration: options.duration,
      });
      await target.release?.();
      const cpuLoaded = target.settle ? cpuMicros(target.pid) : null;
      const settleStarted = Date.now();
      await target.settle?.(result);
      const settleMs = target.settle ? Date.now() - settleStarted : undefined;
      const cpuAfter = cpuReading(target);
      const cpu = cpuPerRequest(cpuBefore, cpuAfter, result.answered);
      // What the service spent while the target settled (idle but for what the load left behind).
      const settleCpu =
        cpuLoaded === null || cpuAfter.service === null || result.answered === 0
          ? null
          : (cpuAfter.service - cpuLoaded) / result.answered;
      results[i].runs.push({ ...result, rss: rss.stop(), cpu, settleMs, settleCpu });
      const { exitCode, signalCode } = target.proc.child;
      if (exitCode !== null || signalCode !== null) {
        throw new Error(
          `${target.name} exited during the benchmark (${signalCode ?? `code ${exitCode}`}):\n${target.proc.stderr()}`,
        );
      }
    }
  }
  return results.map(({ runs, warmup }) => {
    const sorted = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
    const median = sorted[Math.floor(sorted.length / 2)];
    const peaks = runs.map((r) => r.rss.peakMiB).filter((v) => v !== null);
    const cpuMedian = (part) => medianOf(runs.map((r) => r.cpu?.[part]).filter((v) => v !== null && v !== undefined));
    return {
      ...median,
      cpu: { serviceUs: cpuMedian('service'), databaseUs: cpuMedian('database'), sidecarUs: cpuMedian('sidecar') },
      rss: { peakMiB: peaks.length ? Math.max(...peaks) : null, endMiB: runs.at(-1).rss.endMiB },
      runs: runs.map((r) => r.requestsPerSecond),
      // Each run's figures in the order measured, for the spread between rounds.
      cpuRuns: runs.map((r) => r.cpu?.service ?? null),
      databaseCpuRuns: runs.map((r) => r.cpu?.database ?? null),
      sidecarCpuRuns: runs.map((r) => r.cpu?.sidecar ?? null),
      mainCpuRuns: runs.map((r) => r.cpu?.main ?? null),
      syscrRuns: runs.map((r) => r.cpu?.syscr ?? null),
      syscwRuns: runs.map((r) => r.cpu?.syscw ?? null),
      preemptedRuns: runs.map((r) => r.cpu?.preempted ?? null),
      settleMs: runs.map((r) => r.settleMs ?? null),
      settleCpuRuns: runs.map((r) => r.settleCpu ?? null),
      statusCodesIncludingWarmup: mergeCounts([warmup?.statusCodes ?? {}, ...runs.map((r) => r.statusCodes)]),
    };
  });
}

/**
 * CPU used so far by a target's process (all threads: on SQLite the service's background writer
 * too) and, when the target's PostgreSQL database is on this machine, by the server processes
 * working for it (see `postgresCpuSnapshot`).
 */
function cpuReading(target) {
  return {
    service: cpuMicros(target.pid),
    main: cpuMicros(`${target.pid}/task/${target.pid}`),
    io: ioCounters(target.pid),
    switches: contextSwitches(target.pid),
    database: target.postgresDatabase ? postgresCpuSnapshot(target.postgresDatabase) : null,
    sidecar: target.sidecarPid ? cpuMicros(target.sidecarPid) : null,
  };
}

/** Involuntary context switches of all of a process's threads so far (preemptions). */
function contextSwitches(pid) {
  try {
    let total = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      total += Number(/nonvoluntary_ctxt_switches:\s*(\d+)/.exec(status)?.[1] ?? 0);
    }
    return total;
  } catch {
    return null;
  }
}

/** A process's I/O counters (/proc/PID/io), null where they cannot be read. */
function ioCounters(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/io`, 'utf8');
    return Object.fromEntries(
      text
        .trim()
        .split('\n')
        .map((line) => line.split(': '))
        .map(([k, v]) => [k, Number(v)]),
    );
  } catch {
    return null;
  }
}

/** CPU per answered request between two readings, in µs; null where it could not be read. */
function cpuPerRequest(before, after, answered) {
  if (answered === 0) return null;
  return {
    service: before.service === null || after.service === null ? null : (after.service - before.service) / answered,
    database: before.database && after.database ? cpuSpentBetween(before.database, after.database) / answered : null,
    sidecar: before.sidecar === null || after.sidecar === null ? null : (after.sidecar - before.sidecar) / answered,
    main: before.main === null || after.main === null ? null : (after.main - before.main) / answered,
    syscr: before.io && after.io ? (after.io.syscr - before.io.syscr) / answered : null,
    syscw: before.io && after.io ? (after.io.syscw - before.io.syscw) / answered : null,
    preempted:
      before.switches === null || after.switches === null ? null : (after.switches - before.switches) / answered,
  };
}

/** The median of a list of numbers (the upper one of an even count), null for none. */
function medianOf(values) {
  if (values.length === 0) return null;
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

function mergeCounts(list) {
  const total = {};
  for (const counts of list) for (const [key, value] of Object.entries(counts)) total[key] = (total[key] ?? 0) + value;
  return total;
}

/** Request patterns shared by the baselines and the service. */
function redirectLoads(links) {
  return {
    hit: { method: 'GET', paths: spreadIndexes(links, HOT_CODES).map((i) => `/${seededCode(i)}`) },
    // Uniformly random codes over all N links: cold lookups spread over the whole table.
    miss: { method: 'GET', pickPath: () => `/${seededCode(Math.floor(Math.random() * links))}` },
  };
}

/**
 * The build in `--before` on a database of its own, migrated by that build and seeded alike
 * (the schema may have moved on since).
 */
async function startBefore(options, kind, links, account, env = {}) {
  const database = await prepareBenchDatabase(kind, links, account, options.owned, options.before, options.beforeNode);
  const service = await startService(options, database, env, options.before);
  return { database, service: { ...service, name: 'shortlink (before)' } };
}

/** Starts both baselines with the same N links; they answer every seeded code from a Map. */
async function startBaselines(links) {
  const baselines = [];
  for (const [name, script] of [
    ['node:http', 'node-http.mjs'],
    ['fastify', 'fastify.mjs'],
  ]) {
    const port = await freePort();
    const proc = startProcess(name, [join(ROOT, 'bench', 'baselines', script), String(port), String(links)], {
      stdout: 'pipe',
    });
    await announced(proc);
    baselines.push({ name, port, pid: proc.pid, proc });
  }
  return baselines;
}

/** Resolves once a process started with `stdout: 'pipe'` says it is listening (baselines, the receiver). */
function announced(proc) {
  return new Promise((resolveReady, reject) => {
    proc.child.stdout?.on('data', (chunk) => String(chunk).includes('listening') && resolveReady(undefined));
    void proc.exited.then(() => reject(new Error(`${proc.name} exited:\n${proc.stderr()}`)));
  });
}

/**
 * A fresh database of `kind`, migrated by the build in `root` and seeded (the account owning
 * `owned` of the links); `drop()` removes it.
 */
async function prepareBenchDatabase(kind, links, account, owned, root = ROOT, node = process.execPath) {
  const migrations = pathToFileURL(join(root, 'dist', 'src', 'database', 'startup-migrations.js')).href;
  const urlReader = pathToFileURL(join(root, 'dist', 'prisma', 'engine', 'database-url.js')).href;
  // Builds since the one DATABASE_URL reader take its description of the database; older builds
  // (`--before`) take the URL itself.
  const script = `const { prepareDatabase } = await import(${JSON.stringify(migrations)});
    const { readDatabaseUrl } = await import(${JSON.stringify(urlReader)}).catch(() => ({}));
    const url = process.argv[1];
    await prepareDatabase(readDatabaseUrl ? readDatabaseUrl(url) : url, { migrateOnStart: true, log: () => undefined });`;
  // In a process of its own: two schema engines in one process clash (the benchmark's and another build's).
  const migrate = async (url) =>
    execFileSync(node, ['--input-type=module', '-e', script, url], { cwd: root, stdio: 'inherit' });
  if (kind === 'sqlite') {
    // On the same disk as everything else (not tmpfs), so fsync costs what it costs in production.
    const dir = mkdtempSync(join(os.tmpdir(), 'shortlink-bench-'));
    const file = join(dir, 'bench.db');
    await migrate(`file:${file}`);
    seedSqlite(file, links, account, Math.min(owned, links));
    return { url: `file:${file}`, location: file, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `shortlink_bench_${randomBytes(5).toString('hex')}`;
  const admin = async (sql) => {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  await seedPostgres(url.toString(), links, account, Math.min(owned, links));
  return {
    url: url.toString(),
    location: url.toString(),
    // The server's CPU can only be read from /proc when it runs on this machine.
    postgresDatabase: ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) ? name : undefined,
    drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

async function startService(options, database, extraEnv = {}, root = ROOT) {
  const port = await freePort();
  let metricsPort = await freePort();
  while (metricsPort === port) metricsPort = await freePort();
  const start = await serviceStart(root);
  const env = {
    ...start.env,
    NODE_ENV: 'production',
    DATABASE_URL: database.url,
    HOST: '127.0.0.1',
    PORT: String(port),
    SHORT_BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: options.logLevel,
    // Measured as production runs it with metrics scraped: the endpoint on a port of its own
    // (an earlier build ignores the variable).
    METRICS_PORT: String(metricsPort),
    ...UNLIMITED_ENV,
    ...extraEnv,
  };
  // --cpu-prof: V8 writes a profile per thread (the event loop, SQLite's writer) when it exits.
  const profile = options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProf}`] : [];
  const proc = startProcess('shortlink', [...start.flags, ...profile, join(root, 'dist', 'src', 'main.js')], {
    cwd: root,
    env,
    // --before-node's binary runs the build before.
    node: root !== ROOT && options.beforeNode ? options.beforeNode : process.execPath,
  });
  await waitForHttp(proc, `http://127.0.0.1:${port}/health`);
  return { name: 'shortlink', proc, port, pid: proc.pid, env: extraEnv, postgresDatabase: database.postgresDatabase };
}

/**
 * The node options and environment the build in `root` is started with in production
 * (src/node-flags.ts: its package.json scripts and container use the same), so each build is
 * measured as users run it; none for an earlier build that had no such list.
 */
async function serviceStart(root) {
  const file = join(root, 'dist', 'src', 'node-flags.js');
  if (!existsSync(file)) return { flags: [], env: {} };
  const { NODE_FLAGS, START_ENV = {} } = await import(pathToFileURL(file).href);
  return { flags: [...NODE_FLAGS], env: { ...START_ENV } };
}

/** Requests every hot code once so the hit scenario starts with them cached. */
async function warmCache(port, paths) {
  let answered = 0;
  const queue = [...paths];
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let path = queue.pop(); path !== undefined; path = queue.pop()) {
        const response = await fetch(`http://127.0.0.1:${port}${path}`, { redirect: 'manual' });
        await response.arrayBuffer();
        if (response.status === 302) answered++;
      }
    }),
  );
  return answered;
}

/**
 * Everything measured on one database kind with N links: the redirect scenarios side by side
 * with the baselines, then the API.
 */
async function runGroup(options, kind, links, report) {
  const group = { links, database: kind };
  const account = benchAccount();
  log(`  ${kind}: seeding ${links.toLocaleString('en')} links`);
  const seedStarted = Date.now();
  const database = await prepareBenchDatabase(kind, links, account, options.owned);
  log(`  ${kind}: seeded in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);
  // Seeding 1M links leaves a few hundred MiB of dirty pages that the kernel would otherwise
  // write back during the first measurements, on the same 2 cores.
  execFileSync('sync');
  const loads = redirectLoads(links);
  const baselines = options.scenarios.has('hit') || options.scenarios.has('miss') ? await startBaselines(links) : [];
  const addRows = (targets, scenario, expected, results, note) =>
    targets.forEach((target, i) =>
      report.row({
        ...group,
        group: kind,
        database: target.name.startsWith('shortlink') ? kind : '—',
        target: target.name,
        scenario,
        expected,
        result: results[i],
        note: target.name.startsWith('shortlink') ? note : undefined,
      }),
    );
  try {
    // Instance 1: cached redirects. Stopped gracefully, after which every answered redirect
    // must be in the database's click counts (buffered clicks are flushed on shutdown).
    if (options.scenarios.has('hit')) {
      const service = await startService(options, database);
      const before = await linkTotals(kind, database.location);
      const warmed = await warmCache(service.port, loads.hit.paths);
      const earlier = options.before ? await startBefore(options, kind, links, account) : undefined;
      if (earlier) await warmCache(earlier.service.port, loads.hit.paths);
      const targets = [...baselines, service, ...(earlier ? [earlier.service] : [])];
      log(`  ${SCENARIOS.hit}: ${targets.map((t) => t.name).join(', ')} (${kind})`);
      const hitOptions = ratioOptions(options);
      const results = await measureInterleaved(hitOptions, targets, loads.hit, options.connections);
      addRows(targets, SCENARIOS.hit, '302', results);
      checkCachedRedirectRatio(options, report, group, targets, results);
      await earlier?.service.proc.stop('SIGTERM');
      await earlier?.database.drop();
      await service.proc.stop('SIGTERM');
      const after = await linkTotals(kind, database.location);
      const redirects = warmed + (results[baselines.length].statusCodesIncludingWarmup['302'] ?? 0);
      const counted = after.clicks - before.clicks;
      // Requests still in flight when autocannon stops are served and counted but not seen.
      report.check({
        ...group,
        name: 'clicks flushed on graceful shutdown',
        ok: counted >= redirects && counted <= redirects + options.connections * (hitOptions.runs + 1),
        detail: `${redirects} redirects answered, ${counted} clicks in the database after SIGTERM`,
      });
    }

    if (options.scenarios.has('webhooks') || options.scenarios.has('drain'))
      await runWebhooks(options, kind, database, report, group);

    // Instance 2: uncached redirects, then the API. Killed with SIGKILL, after which every
    // acknowledged link must still be in the database.
    // The reads first: bulk creation adds its links to the benchmark account, which the list and
    // search scenarios must find at --owned links.
    const apiScenarios = [
      'list',
      'search',
      'tag',
      'tagsearch',
      'page',
      'pagesearch',
      'clicks',
      'overview',
      'create',
      'quick',
      'bulk',
    ].filter((id) => options.scenarios.has(id));
    if (!options.scenarios.has('miss') && apiScenarios.length === 0) return;
    const service = await startService(options, database, options.scenarios.has('miss') ? MISS_SERVICE_ENV : {});
    if (options.scenarios.has('miss')) {
      log(
        `  ${SCENARIOS.miss}: node:http, fastify, shortlink (${kind}, ${Object.entries(service.env)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')})`,
      );
      const earlier = options.before ? await startBefore(options, kind, links, account, MISS_SERVICE_ENV) : undefined;
      const targets = [...baselines, service, ...(earlier ? [earlier.service] : [])];
      try {
        const results = await measureInterleaved(options, targets, loads.miss, options.connections);
        addRows(targets, SCENARIOS.miss, '302', results, 'cache off');
      } finally {
        await earlier?.service.proc.stop('SIGTERM');
        await earlier?.database.drop();
      }
    }
    const before = await linkTotals(kind, database.location);
    let acknowledged = 0;
    const api = {
      create: {
        load: {
          method: 'POST',
          paths: ['/api/links'],
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ url: 'https://example.com/a/fairly/long/landing-page?campaign=bench' }),
        },
        expected: '201',
      },
      quick: {
        load: {
          method: 'GET',
          paths: [`/api/s?url=${encodeURIComponent('https://example.com/quick?campaign=bench')}`],
        },
        expected: '200',
      },
      // 1000 links per call, each with a URL of its own.
      bulk: {
        load: {
          method: 'POST',
          paths: ['/api/links/bulk'],
          headers: { 'content-type': 'application/json', 'x-api-key': account.token },
          body: JSON.stringify({
            links: Array.from({ length: BULK_ITEMS }, (_, i) => ({
              url: `https://example.com/bulk/${i}?campaign=bench`,
            })),
          }),
        },
        expected: '200',
      },
      list: {
        load: { method: 'GET', paths: ['/api/links?limit=20'], headers: { 'x-api-key': account.token } },
        expected: '200',
      },
      // Every one of the account's links is looked at (a substring, in the code or the URL,
      // ignoring case); a handful match (articles/123, /1230–1239, …).
      search: {
        load: {
          method: 'GET',
          paths: ['/api/links?q=ARTICLES%2F123&limit=20'],
          headers: { 'x-api-key': account.token },
        },
        expected: '200',
      },
      // Every one of the account's links has the tag: the page is read from the tag's index and
      // the total is its kept count.
      tag: {
        load: {
          method: 'GET',
          paths: [`/api/links?tag=${BENCH_TAG}&limit=20`],
          headers: { 'x-api-key': account.token },
        },
        expected: '200',
      },
      // The search looks at the tag's links only (a tenth of the account's); one matches.
      tagsearch: {
        load: {
          method: 'GET',
          paths: [`/api/links?tag=${BENCH_TENTH_TAG}&q=ARTICLES%2F1230&limit=20`],
          headers: { 'x-api-key': account.token },
        },
        expected: '200',
      },
      // The dashboard's links page for the same rows as list and search: HTML, a session cookie.
      page: {
        load: { method: 'GET', paths: ['/dashboard'], headers: { cookie: `shortlink_session=${account.session}` } },
        expected: '200',
      },
      pagesearch: {
        load: {
          method: 'GET',
          paths: ['/dashboard?q=ARTICLES%2F123'],
          headers: { cookie: `shortlink_session=${account.session}` },
        },
        expected: '200',
      },
      // A link with a year of daily rows and referrers (see seed.mjs), its whole year asked for.
      clicks: {
        load: {
          method: 'GET',
          paths: [`/api/links/${seededCode(0)}/clicks?days=${CLICK_HISTORY_DAYS}`],
          headers: { 'x-api-key': account.token },
        },
        expected: '200',
      },
      // The account's overview: 500 of its links clicked on each of the last 30 days (seed.mjs).
      overview: {
        load: { method: 'GET', paths: ['/api/clicks?days=30'], headers: { 'x-api-key': account.token } },
        expected: '200',
      },
    };
    const perSecond = {};
    /** @type {Record<string, number>} */
    const cpuPerCall = {};
    /** @type {Record<string, number>} */
    const serviceCpuPerCall = {};
    for (const id of apiScenarios) {
      const { load, expected } = api[id];
      // The build before, beside this one (with an older build whose API lacks a scenario, pick
      // the scenarios it has with --scenarios).
      const before = options.before ? await startBefore(options, kind, links, account) : undefined;
      try {
        const targets = before ? [service, before.service] : [service];
        log(`  ${SCENARIOS[id]}: ${targets.map((t) => t.name).join(', ')} (${kind})`);
        // --smoke's 1 s is shorter than ten bulk calls of 1,000 links take at once on a loaded
        // 2-core machine (none answered within it in a CI run beside other benchmarks): a bulk row
        // gets 4 s there, so that it checks calls are answered rather than how fast.
        const rowOptions =
          id === 'bulk' && options.smoke ? { ...options, duration: Math.max(options.duration, 4) } : options;
        const results = await measureInterleaved(rowOptions, targets, load, API_CONNECTIONS);
        addRows(targets, SCENARIOS[id], expected, results, id === 'bulk' ? `${BULK_ITEMS} links/call` : undefined);
        const [result] = results;
        perSecond[id] = result.requestsPerSecond;
        if (result.cpu.serviceUs !== null) {
          cpuPerCall[id] = totalCpu(result);
          serviceCpuPerCall[id] = result.cpu.serviceUs;
        }
        if (id === 'create' || id === 'quick') acknowledged += result.statusCodesIncludingWarmup[expected] ?? 0;
        if (id === 'bulk') acknowledged += BULK_ITEMS * (result.statusCodesIncludingWarmup[expected] ?? 0);
      } finally {
        await before?.service.proc.stop('SIGTERM');
        await before?.database.drop();
      }
    }
    for (const [page, api] of [
      ['page', 'list'],
      ['pagesearch', 'search'],
    ]) {
      if (cpuPerCall[page] === undefined || cpuPerCall[api] === undefined) continue;
      const ratio = cpuPerCall[page] / cpuPerCall[api];
      report.check({
        ...group,
        name: `${SCENARIOS[page]} ≤ 2 × ${SCENARIOS[api]} (CPU per call)`,
        ...targetCheck(options, ratio <= 2),
        detail: `${Math.round(cpuPerCall[page])} µs against ${Math.round(cpuPerCall[api])} µs: ${ratio.toFixed(2)} ×`,
      });
    }
    if (serviceCpuPerCall.clicks !== undefined) {
      // The service's CPU, as the list's target is read: on SQLite that includes the database's
      // work (in the process); PostgreSQL's share is reported beside it.
      const database = cpuPerCall.clicks - serviceCpuPerCall.clicks;
      report.check({
        ...group,
        name: `${SCENARIOS.clicks} ≤ ${CLICKS_CPU_TARGET_US / 1000} ms of service CPU per call`,
        ...targetCheck(options, serviceCpuPerCall.clicks <= CLICKS_CPU_TARGET_US),
        detail: `${Math.round(serviceCpuPerCall.clicks)} µs${database > 0 ? ` (+ ${Math.round(database)} µs of the database server's)` : ''}`,
      });
    }
    if (perSecond.bulk !== undefined && perSecond.create !== undefined) {
      const ratio = (perSecond.bulk * BULK_ITEMS) / perSecond.create;
      report.check({
        ...group,
        name: 'bulk create ≥ 5 × single creation',
        ...targetCheck(options, ratio >= 5),
        detail: `${Math.round(perSecond.bulk * BULK_ITEMS).toLocaleString('en')} links/s in bulk, ${Math.round(perSecond.create).toLocaleString('en')}/s one by one: ${ratio.toFixed(1)} ×`,
      });
    }
    // Killed, to check that every acknowledged creation is on disk; under --cpu-prof stopped
    // instead, because V8 writes the profiles only when the process exits on its own.
    await service.proc.stop(options.cpuProf ? 'SIGTERM' : 'SIGKILL');
    if (!options.cpuProf && apiScenarios.some((id) => id === 'create' || id === 'quick' || id === 'bulk')) {
      const after = await linkTotals(kind, database.location);
      const found = after.links - before.links;
      report.check({
        ...group,
        name: 'created links survive SIGKILL',
        ok: found >= acknowledged,
        detail: `${acknowledged} creations acknowledged, ${found} new rows after kill -9`,
      });
    }
  } finally {
    for (const baseline of baselines) await baseline.proc.stop();
    await database.drop();
  }
}

/**
 * Instance 3, webhooks (issue 32's target: creating links with one endpoint subscribed costs at
 * most WEBHOOK_CPU_TARGET × creating them without). Two accounts of their own, each with a token:
 * one with an endpoint subscribed to `link.created` that posts to a local receiver (a process of
 * its own answering 204), one with none. Their creations are measured interleaved on one
 * instance, so both share the instance and the machine's drift. After each round of the account
 * with the endpoint, the runner waits until the receiver has every message of the links created
 * so far: the deliveries' CPU is counted in that round, never in the next one. Then `drain`:
 * 1,000 links created in one bulk call, whose 1,000 messages are pending when it answers, timed
 * until the receiver has them all. The same again, every round interleaved, with this build's
 * instance started with WEBHOOK_DELIVERY=off and a `shortlink webhooks worker` process beside it,
 * on a database of their own (an instance that delivers would take their messages too): the
 * target is judged on that instance's CPU, and the worker's is reported apart (per message, and
 * per drained message). And once more with no worker at all (messages stored, none sent): what
 * storing costs the instance while the machine delivers nothing, to tell it from what a worker
 * on the same cores costs it. With --before, the build before does what this build's instance
 * does with a worker beside it, the judged deployment (its own database too), every round
 * interleaved with this build's.
 */
async function runWebhooks(options, kind, database, report, group) {
  const receiverPort = await freePort();
  const receiverScript = join(ROOT, 'bench', 'baselines', 'webhook-receiver.mjs');
  const receiver = startProcess('webhook receiver', [receiverScript, String(receiverPort)], { stdout: 'pipe' });
  const builds = [];
  try {
    await announced(receiver);
    builds.push(await startWebhookBuild(options, kind, database, receiverPort, 'shortlink', ROOT));
    const apart = await prepareBenchDatabase(kind, 1000, benchAccount(), 0);
    builds.push({
      ...(await startWebhookBuild(options, kind, apart, receiverPort, WORKER_TARGET, ROOT, { delivery: 'worker' })),
      drop: apart.drop,
    });
    if (options.scenarios.has('webhooks')) {
      const idle = await prepareBenchDatabase(kind, 1000, benchAccount(), 0);
      builds.push({
        ...(await startWebhookBuild(options, kind, idle, receiverPort, STORING_TARGET, ROOT, { delivery: 'none' })),
        drop: idle.drop,
      });
    }
    if (options.study && kind === 'sqlite' && options.scenarios.has('webhooks')) {
      for (const [delivery, name] of [
        ['commits', 'study: delivery off + commits only'],
        ['burner', 'study: delivery off + CPU only'],
      ]) {
        const db = await prepareBenchDatabase(kind, 1000, benchAccount(), 0);
        builds.push({
          ...(await startWebhookBuild(options, kind, db, receiverPort, name, ROOT, { delivery })),
          drop: db.drop,
        });
      }
    }
    if (options.before) {
      const own = await prepareBenchDatabase(kind, 1000, benchAccount(), 0, options.before, options.beforeNode);
      builds.push({
        ...(await startWebhookBuild(options, kind, own, receiverPort, `${WORKER_TARGET} (before)`, options.before, {
          delivery: 'worker',
        })),
        drop: own.drop,
      });
    }
    if (options.scenarios.has('webhooks')) {
      const targets = builds.flatMap((build) => [
        { ...build.service, name: build.name, sidecarPid: build.worker?.pid, load: build.createAs(build.plain) },
        {
          ...build.service,
          name: build.name,
          sidecarPid: build.worker?.pid,
          load: build.createAs(build.hooked),
          settle: build.storesOnly
            ? undefined
            : async () => void (await build.deliveredUpTo(await build.hookedLinks())),
        },
      ]);
      // --study: the judged instance's creations with the webhook once more, right after them, its
      // worker held up (the receiver answers nothing during the round): the instance's work is the
      // same, the worker beside it neither sends nor commits.
      const held = options.study ? builds.filter((build) => build.judged) : [];
      /** Where each build's held target is in `targets`. */
      const heldAt = new Map();
      for (const build of held) {
        const at = 2 * builds.indexOf(build) + 2;
        heldAt.set(build, at);
        targets.splice(at, 0, {
          ...build.service,
          name: `${build.name}, worker held up`,
          sidecarPid: build.worker?.pid,
          load: build.createAs(build.hooked),
          hold: () => build.hold(true),
          release: () => build.hold(false),
          settle: async () => void (await build.deliveredUpTo(await build.hookedLinks())),
        });
      }
      log(`  ${SCENARIOS.webhooks}: ${builds.map((b) => b.name).join(', ')}, the two accounts interleaved (${kind})`);
      const receiverCpuBefore = cpuMicros(receiver.pid);
      const measured = await measureInterleaved(ratioOptions(options), targets, undefined, API_CONNECTIONS);
      // Each build's two results in their places, the held-up ones apart.
      const results = measured.filter((_, i) => ![...heldAt.values()].includes(i));
      {
        let delivered = 0;
        for (const build of builds) if (!build.storesOnly) delivered += (await build.counts()).received;
        if (delivered > 0)
          log(
            `    the receiver's CPU: ${Math.round((cpuMicros(receiver.pid) - receiverCpuBefore) / delivered)} µs per message (${delivered} messages)`,
          );
      }
      for (const [b, build] of builds.entries()) {
        const [without, withHook] = results.slice(2 * b, 2 * b + 2);
        const workerNote = (result) =>
          result.cpu.sidecarUs === null ? '' : `; the worker's CPU apart: ${Math.round(result.cpu.sidecarUs)} µs/req`;
        [without, withHook].forEach((result, i) =>
          report.row({
            ...group,
            group: kind,
            target: build.name,
            scenario: i === 0 ? WEBHOOK_ROWS.without : WEBHOOK_ROWS.with,
            expected: '201',
            result,
            note:
              i === 1
                ? build.storesOnly
                  ? 'link.created, stored and not sent'
                  : `link.created, delivered to a local receiver${build.worker ? ' by the worker process' : ''}${workerNote(result)}`
                : build.worker || build.storesOnly
                  ? `delivery off${workerNote(result)}`
                  : undefined,
          }),
        );
        const links = await build.hookedLinks();
        const final = await build.counts();
        report.check(
          build.storesOnly
            ? {
                ...group,
                name: `${build.name}: an instance with delivery off sends nothing`,
                ok: final.received === 0,
                detail: `${links} links created with the webhook, ${final.received} messages received`,
              }
            : {
                ...group,
                name: `${build.name}: every webhook message delivered, once`,
                ok: final.distinct === links && final.received === final.distinct,
                detail: `${links} links created with the webhook, ${final.distinct} messages received (${final.received - final.distinct} more than once)`,
              },
        );
        if (without.cpu.serviceUs === null || withHook.cpu.serviceUs === null) continue;
        const ratio = withHook.cpu.serviceUs / without.cpu.serviceUs;
        // Rounds are paired as measured (the two accounts one after the other): each pair's ratio.
        const rounds = withHook.cpuRuns.map((cpu, i) =>
          cpu === null || !without.cpuRuns[i] ? null : cpu / without.cpuRuns[i],
        );
        const list = (values, digits = 0) => values.map((v) => (v === null ? '—' : v.toFixed(digits))).join(', ');
        const postgres =
          without.cpu.databaseUs !== null && withHook.cpu.databaseUs !== null
            ? `; PostgreSQL's + ${Math.round(without.cpu.databaseUs)} / + ${Math.round(withHook.cpu.databaseUs)} µs (rounds ${list(without.databaseCpuRuns)} / ${list(withHook.databaseCpuRuns)}), service and database ${(totalCpu(withHook) / totalCpu(without)).toFixed(2)} ×`
            : '';
        const worker =
          withHook.cpu.sidecarUs === null
            ? ''
            : `; the worker process's CPU per link with the webhook ${Math.round(withHook.cpu.sidecarUs)} µs (rounds ${list(withHook.sidecarCpuRuns)}), without ${Math.round(without.cpu.sidecarUs ?? 0)} µs (its polls); API instance and worker together ${((withHook.cpu.serviceUs + withHook.cpu.sidecarUs) / (without.cpu.serviceUs + (without.cpu.sidecarUs ?? 0))).toFixed(2)} ×`;
        const name = build.judged
          ? `creation with one webhook ≤ ${WEBHOOK_CPU_TARGET.toFixed(2)} × without (CPU of the API instance with delivery off, per created link)`
          : build.storesOnly
            ? `${build.name}: creation with one webhook against without (storing the message only, nothing delivered)`
            : build.worker
              ? `${build.name}: creation with one webhook against without (CPU of the API instance with delivery off, per created link)`
              : `${build.name}, delivering in-process: creation with one webhook against without (service CPU per created link)`;
        report.check({
          ...group,
          name,
          // Judged on the instance beside a worker (the deployment the target is for); the
          // in-process figures and the build before are reported, not judged.
          ...(build.judged ? targetCheck(options, ratio <= WEBHOOK_CPU_TARGET) : { ok: true }),
          detail: `${Math.round(withHook.cpu.serviceUs)} µs against ${Math.round(without.cpu.serviceUs)} µs: ${ratio.toFixed(2)} × (rounds: ${list(withHook.cpuRuns)} against ${list(without.cpuRuns)} µs, ${list(rounds, 2)} ×)${postgres}${worker}${build.storesOnly ? '' : `; deliveries all in ${list(withHook.settleMs)} ms after each round, the instance's CPU meanwhile ${list(withHook.settleCpuRuns)} µs per link`}; main thread ${list(withHook.mainCpuRuns)} against ${list(without.mainCpuRuns)} µs; read syscalls ${list(withHook.syscrRuns, 1)} against ${list(without.syscrRuns, 1)}, write syscalls ${list(withHook.syscwRuns, 1)} against ${list(without.syscwRuns, 1)} per link; preempted ${list(withHook.preemptedRuns, 2)} against ${list(without.preemptedRuns, 2)} per link; req/s ${list(withHook.runs)} against ${list(without.runs)}`,
          ratio,
          rounds,
          workerCpuUs: withHook.cpu.sidecarUs,
          workerCpuRuns: withHook.sidecarCpuRuns,
        });
      }
      for (const build of held) {
        const running = results[2 * builds.indexOf(build) + 1];
        const stopped = measured[heldAt.get(build)];
        const list = (values, digits = 0) => values.map((v) => (v === null ? '—' : v.toFixed(digits))).join(', ');
        const rounds = running.cpuRuns.map((cpu, i) =>
          cpu === null || !stopped.cpuRuns[i] ? null : cpu / stopped.cpuRuns[i],
        );
        report.check({
          ...group,
          name: `study: ${build.name}: creation with one webhook, the worker delivering against the worker held up`,
          ok: true,
          detail: `${Math.round(running.cpu.serviceUs)} µs against ${Math.round(stopped.cpu.serviceUs)} µs: ${(running.cpu.serviceUs / stopped.cpu.serviceUs).toFixed(2)} × (rounds: ${list(running.cpuRuns)} against ${list(stopped.cpuRuns)} µs, ${list(rounds, 2)} ×); main thread ${list(running.mainCpuRuns)} against ${list(stopped.mainCpuRuns)} µs; read syscalls ${list(running.syscrRuns, 1)} against ${list(stopped.syscrRuns, 1)}; preempted ${list(running.preemptedRuns, 2)} against ${list(stopped.preemptedRuns, 2)} per link; the instance's CPU while the deliveries settled after each round ${list(running.settleCpuRuns)} against ${list(stopped.settleCpuRuns)} µs per link; the worker's CPU ${list(running.sidecarCpuRuns)} against ${list(stopped.sidecarCpuRuns)} µs per link; req/s ${list(running.runs)} against ${list(stopped.runs)}`,
        });
      }
    }
    if (options.scenarios.has('drain')) {
      // An instance that stores only has nothing to drain.
      const draining = builds.filter((build) => !build.storesOnly);
      log(`  ${SCENARIOS.drain}: ${draining.map((b) => b.name).join(', ')} (${kind})`);
      const figures = draining.map(() => ({ times: /** @type {number[]} */ ([]), cpu: /** @type {number[]} */ ([]) }));
      for (let run = 0; run < options.runs; run++) {
        const order = [...draining.entries()];
        if (run % 2 === 1) order.reverse();
        for (const [b, build] of order) {
          const { ms, cpuPerMessage } = await build.drain(`${run}`);
          figures[b].times.push(ms);
          if (cpuPerMessage !== null) figures[b].cpu.push(cpuPerMessage);
        }
      }
      for (const [b, build] of draining.entries()) {
        const { times, cpu } = figures[b];
        const name = `${DRAIN_MESSAGES.toLocaleString('en')} pending webhook messages delivered in < ${DRAIN_TARGET_MS / 1000} s`;
        report.check({
          ...group,
          name: b === 0 ? name : `${build.name}: ${name}`,
          ...(b === 0 ? targetCheck(options, Math.max(...times) < DRAIN_TARGET_MS) : { ok: true }),
          detail: `${times.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ')} (${cpu.map((us) => Math.round(us)).join(', ')} µs of ${build.worker ? "the worker process's" : 'service'} CPU per message)`,
          drainMs: times,
          cpuPerMessageUs: cpu,
        });
      }
    }
  } finally {
    for (const build of builds) {
      await build.service.proc.stop('SIGTERM');
      await build.worker?.stop('SIGTERM');
      await build.drop?.();
    }
    await receiver.stop();
  }
}

/**
 * One build's side of the webhook scenarios: its instance on `database`, its two accounts (one
 * with an endpoint posting to the receiver at a path of its own), and what the runner asks of
 * them.
 */
/**
 * `delivery`: `inline`, the instance delivers (the default); `worker`, it only stores
 * (WEBHOOK_DELIVERY=off) and a worker process beside it delivers; `none`, it only stores and
 * nothing delivers.
 */
async function startWebhookBuild(options, kind, database, receiverPort, name, root, { delivery = 'inline' } = {}) {
  const path = `/${name.replace(/\W+/g, '-')}`;
  const plain = benchAccount(`plain-${path.slice(1)}@example.com`);
  const hooked = benchAccount(`hooked-${path.slice(1)}@example.com`);
  for (const account of [plain, hooked]) await addAccount(kind, database.location, account);
  const service = await startService(
    options,
    database,
    delivery === 'inline' ? WEBHOOK_SERVICE_ENV : { ...WEBHOOK_SERVICE_ENV, WEBHOOK_DELIVERY: 'off' },
    root,
  );
  const workerProc =
    delivery === 'worker'
      ? await startWebhookWorker(options, database, root)
      : delivery === 'commits' || delivery === 'burner'
        ? await startStudySidecar(delivery, database, root)
        : undefined;
  const base = `http://127.0.0.1:${service.port}`;
  const added = await fetch(`${base}/api/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': hooked.token },
    body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}${path}`, events: ['link.created'] }),
  });
  if (added.status !== 201) throw new Error(`adding ${name}'s webhook answered ${added.status}: ${await added.text()}`);
  const counts = async () =>
    /** @type {{ received: number, distinct: number }} */ (
      await (await fetch(`http://127.0.0.1:${receiverPort}${path}`)).json()
    );
  /** Waits until the receiver has at least `distinct` different messages in all; when they were in. */
  const deliveredUpTo = async (distinct, timeoutMs = 120_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = await counts();
      if (now.distinct >= distinct) return { ...now, reachedAt: Date.now() };
      if (Date.now() > deadline)
        throw new Error(
          `${name}: the receiver has ${now.distinct} of ${distinct} webhook messages after ${timeoutMs / 1000} s`,
        );
      await sleep(5);
    }
  };
  /**
   * The links of the account with the endpoint: as many messages must arrive. Read from the
   * service (the list's total), as autocannon does not count the requests it still had under way
   * when it stopped, which the service answers all the same.
   */
  const hookedLinks = async () => {
    await sleep(QUIET_MS);
    const list = await fetch(`${base}/api/links?limit=1`, { headers: { 'x-api-key': hooked.token } });
    return /** @type {{ total: number }} */ (await list.json()).total;
  };
  return {
    name,
    service: { ...service, name },
    worker: workerProc,
    // The target is judged on this build's instance; the build before's is reported beside it.
    judged: delivery === 'worker' && root === ROOT,
    // The study's sidecars deliver nothing either.
    storesOnly: delivery !== 'inline' && delivery !== 'worker',
    plain,
    hooked,
    counts,
    deliveredUpTo,
    hookedLinks,
    /** Holds up (or lets go) the receiver's answers to this build's endpoint. */
    hold: async (on) => {
      await (await fetch(`http://127.0.0.1:${receiverPort}${path}?hold=${on ? 1 : 0}`)).text();
    },
    createAs: (account) => ({
      method: 'POST',
      paths: ['/api/links'],
      headers: { 'content-type': 'application/json', 'x-api-key': account.token },
      body: JSON.stringify({ url: 'https://example.com/a/fairly/long/landing-page?campaign=bench' }),
    }),
    /** DRAIN_MESSAGES links in one bulk call, timed from its answer until their messages are in. */
    async drain(run) {
      const before = await deliveredUpTo(await hookedLinks());
      const response = await fetch(`${base}/api/links/bulk`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': hooked.token },
        body: JSON.stringify({
          links: Array.from({ length: DRAIN_MESSAGES }, (_, i) => ({
            url: `https://example.com/drain/${run}/${i}?campaign=bench`,
          })),
        }),
      });
      if (response.status !== 200) throw new Error(`${name}: the drain's bulk call answered ${response.status}`);
      const created = (await response.json()).data.filter((item) => 'link' in item).length;
      // From the answer, when all of them are committed and pending.
      const started = Date.now();
      // The process that delivers: the worker beside an instance with delivery off.
      const deliverer = workerProc?.pid ?? service.pid;
      const cpuBefore = cpuMicros(deliverer);
      const after = await deliveredUpTo(before.distinct + created, 60_000);
      const cpuAfter = cpuMicros(deliverer);
      return {
        ms: after.reachedAt - started,
        cpuPerMessage: cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / created,
      };
    },
  };
}

/** A study's process beside an instance with delivery off (bench/studies/webhook-*.mjs). */
async function startStudySidecar(delivery, database, root) {
  const args =
    delivery === 'commits'
      ? [join(ROOT, 'bench', 'studies', 'webhook-commits-only.mjs'), root, database.url]
      : [join(ROOT, 'bench', 'studies', 'webhook-cpu-burner.mjs'), database.url, String(STUDY_BURN_US)];
  const proc = startProcess(`study ${delivery}`, args, { cwd: root, stdout: 'pipe' });
  await new Promise((resolveReady, reject) => {
    proc.child.stdout?.on('data', (chunk) => String(chunk).includes('Delivering') && resolveReady(undefined));
    void proc.exited.then(() => reject(new Error(`the study's sidecar exited during start-up:\n${proc.stderr()}`)));
  });
  return proc;
}

/**
 * `shortlink webhooks worker` of the build in `root` on `database`, as it runs in production (the
 * compiled CLI); resolves once it says it delivers.
 */
async function startWebhookWorker(options, database, root) {
  const env = {
    NODE_ENV: 'production',
    DATABASE_URL: database.url,
    LOG_LEVEL: options.logLevel,
    ...WEBHOOK_SERVICE_ENV,
  };
  const profile = options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProf}`] : [];
  const proc = startProcess(
    'webhook worker',
    [...profile, join(root, 'dist', 'src', 'cli', 'main.js'), 'webhooks', 'worker'],
    { cwd: root, env, stdout: 'pipe' },
  );
  await new Promise((resolveReady, reject) => {
    // Read to the end (a pipe left unread would stall the worker once full).
    proc.child.stdout?.on(
      'data',
      (chunk) => String(chunk).includes('Delivering the webhook messages') && resolveReady(undefined),
    );
    void proc.exited.then(() => reject(new Error(`the webhook worker exited during start-up:\n${proc.stderr()}`)));
  });
  return proc;
}

/**
 * The flat-cost comparison: the same scenario against two instances of the service, one on a
 * database of the smallest N links and one on a database of the largest, measured interleaved
 * (small, large, small, large, …). The groups above are measured one after the other, minutes
 * apart, so comparing their absolute figures mixes the machine's drift into the result;
 * interleaving makes both sizes share it.
 */
async function runFlatCost(options, kind, report) {
  const sizes = [Math.min(...options.links), Math.max(...options.links)];
  const scenarios = ['hit', 'miss'].filter((id) => options.scenarios.has(id));
  if (scenarios.length === 0) return;
  log(`\nflat cost on ${kind}: ${sizes.map((n) => n.toLocaleString('en')).join(' vs ')} links, interleaved`);
  const databases = [];
  try {
    for (const links of sizes) {
      log(`  ${kind}: seeding ${links.toLocaleString('en')} links`);
      databases.push({ links, database: await prepareBenchDatabase(kind, links, benchAccount(), options.owned) });
    }
    execFileSync('sync');
    for (const id of scenarios) {
      const services = [];
      try {
        for (const { links, database } of databases) {
          const load = redirectLoads(links)[id];
          const service = await startService(options, database, id === 'miss' ? MISS_SERVICE_ENV : {});
          if (id === 'hit') await warmCache(service.port, load.paths);
          services.push({ ...service, name: `shortlink (${links.toLocaleString('en')} links)`, load });
        }
        log(`  ${SCENARIOS[id]}: ${services.map((service) => service.name).join(', ')}`);
        const [small, large] = await measureInterleaved(options, services, undefined, options.connections);
        report.compareSizes({
          database: kind,
          scenario: SCENARIOS[id],
          note: id === 'miss' ? 'cache off' : undefined,
          sizes,
          small,
          large,
        });
      } finally {
        for (const service of services) await service.proc.stop('SIGTERM');
      }
    }
  } finally {
    for (const { database } of databases) await database.drop();
  }
}

/**
 * Issue 55's change feed, on a database of its own (1,000 links of the benchmark account): two
 * instances of this build with no Redis, each hearing the other's changes through the database
 * only (SQLite: a table each polls every 200 ms; PostgreSQL: LISTEN/NOTIFY). Per run:
 * - idle: instance B's CPU (all its threads, every timer included: the feed's poll or listener is
 *   a part of it) over `--duration` seconds in which nobody calls either instance; for PostgreSQL
 *   also the database server's processes for that database, after a `+`;
 * - visible: CHANGE_EDITS edits of a link's target through A's API (`PUT /api/links/{code}`), each
 *   link cached on B first (redirected twice), each edit after a random 0–250 ms pause (so that
 *   edits do not fall in step with SQLite's polls), timed from the request until B redirects to
 *   the new target (B asked every 2 ms). The acknowledgement's time is kept apart.
 * - the command: `shortlink account disable`, then `enable`, of the account owning the links
 *   (the compiled CLI, as an admin runs it), each timed from the command's end until B answers
 *   one of its cached links 410, then 302 again.
 * Checked: the idle CPU ≤ IDLE_CPU_TARGET_PERCENT % of a core (the median run), every edit visible
 * within CHANGE_VISIBLE_TARGET_MS (the slowest of all runs). Not run against `--before`.
 */
async function runChangeFeed(options, kind, report) {
  const account = benchAccount();
  const links = 1000;
  const edits = options.smoke ? 3 : CHANGE_EDITS;
  log(
    `\n${SCENARIOS.changes} (${kind}): two instances, ${options.runs} run(s) of ${options.duration} s idle and ${edits} edits`,
  );
  const database = await prepareBenchDatabase(kind, links, account, links);
  // No Redis, whatever the runner's environment says (an empty value is unset).
  const env = { REDIS_URL: '' };
  const services = [];
  try {
    services.push(await startService(options, database, env), await startService(options, database, env));
    const [a, b] = services;
    const base = (service) => `http://127.0.0.1:${service.port}`;
    const status = async (service, code) => {
      const response = await fetch(`${base(service)}/${code}`, { redirect: 'manual' });
      await response.arrayBuffer();
      return response.status;
    };
    const target = async (service, code) => {
      const response = await fetch(`${base(service)}/${code}`, { redirect: 'manual' });
      await response.arrayBuffer();
      return response.headers.get('location');
    };
    const runs = [];
    let next = 0;
    for (let run = 0; run < options.runs; run++) {
      // Idle: what B spends while nobody asks anything of either instance (the first run once
      // start-up's after-work, compilation and collection, has settled).
      await sleep(run === 0 && !options.smoke ? 5000 : 1000);
      const startedAt = process.hrtime.bigint();
      const cpuBefore = threadsCpuMicros(b.pid);
      const databaseBefore = b.postgresDatabase ? postgresCpuSnapshot(b.postgresDatabase) : null;
      await sleep(options.duration * 1000);
      const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
      const cpuAfter = threadsCpuMicros(b.pid);
      const databaseAfter = b.postgresDatabase ? postgresCpuSnapshot(b.postgresDatabase) : null;
      const idle = {
        serviceUsPerSecond: cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / seconds,
        databaseUsPerSecond:
          databaseBefore && databaseAfter ? cpuSpentBetween(databaseBefore, databaseAfter) / seconds : null,
      };
      // Visible: an edit through A, timed until B answers it.
      const visibleMs = [];
      const acknowledgedMs = [];
      /** From the edit's answer until B answers it: the feed's own delay. */
      const afterAnswerMs = [];
      for (let edit = 0; edit < edits; edit++) {
        const index = next++ % links;
        const code = seededCode(index);
        const changed = `https://example.com/changed/${run}/${edit}?campaign=bench`;
        const before = [await target(b, code), await target(b, code)];
        if (before.some((location) => location !== seededUrl(index)))
          throw new Error(`${kind}: instance B redirected ${code} to ${before.join(', ')} before the edit`);
        await sleep(Math.random() * 250);
        const started = performance.now();
        const response = await fetch(`${base(a)}/api/links/${code}`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', 'x-api-key': account.token },
          body: JSON.stringify({ url: changed }),
        });
        await response.arrayBuffer();
        if (response.status !== 200)
          throw new Error(`${kind}: the edit through instance A answered ${response.status}`);
        const acknowledged = performance.now();
        acknowledgedMs.push(acknowledged - started);
        const deadline = started + 10_000;
        while ((await target(b, code)) !== changed) {
          if (performance.now() > deadline)
            throw new Error(`${kind}: instance B still redirects ${code} to the old target 10 s after the edit`);
          await sleep(2);
        }
        const seen = performance.now();
        visibleMs.push(seen - started);
        afterAnswerMs.push(seen - acknowledged);
      }
      // The command beside them: the account disabled and enabled again with `shortlink`, each
      // timed until B answers a link of the account as it should (410, then 302 again).
      const commandMs = [];
      const code = seededCode(next++ % links);
      for (const [args, expected] of [
        [['account', 'disable', account.email, '--reason', 'bench'], 410],
        [['account', 'enable', account.email], 302],
      ]) {
        const previous = expected === 410 ? 302 : 410;
        const before = [await status(b, code), await status(b, code)];
        if (before.some((answer) => answer !== previous))
          throw new Error(`${kind}: instance B answered ${code} with ${before.join(', ')} before \`${args[1]}\``);
        const started = performance.now();
        await execFileAsync(process.execPath, [CLI_ENTRY, ...args], {
          cwd: ROOT,
          env: {
            ...process.env,
            NODE_ENV: 'production',
            DATABASE_URL: database.url,
            LOG_LEVEL: options.logLevel,
            ...env,
          },
        });
        const ended = performance.now();
        const deadline = ended + 10_000;
        while ((await status(b, code)) !== expected) {
          if (performance.now() > deadline)
            throw new Error(
              `${kind}: instance B still answers ${code} as before 10 s after \`shortlink ${args.join(' ')}\``,
            );
          await sleep(2);
        }
        commandMs.push({ command: args[1], total: performance.now() - started, afterEnd: performance.now() - ended });
      }
      runs.push({ idle, visibleMs, acknowledgedMs, afterAnswerMs, commandMs });
      log(
        `    run ${run + 1}: idle ${formatIdle(idle)}; visible in ${summarize(visibleMs)} (acknowledged in ${summarize(acknowledgedMs)}; after the answer ${summarize(afterAnswerMs)}); ${commandMs.map((c) => `\`${c.command}\` answered ${Math.round(c.afterEnd)} ms after the command ended (${Math.round(c.total)} ms after it started)`).join(', ')}`,
      );
      for (const service of services) {
        const { exitCode, signalCode } = service.proc.child;
        if (exitCode !== null || signalCode !== null)
          throw new Error(`an instance exited during the change-feed scenario:\n${service.proc.stderr()}`);
      }
    }
    const idleMedian = medianOf(runs.map((r) => r.idle.serviceUsPerSecond).filter((v) => v !== null));
    const databaseMedian = medianOf(runs.map((r) => r.idle.databaseUsPerSecond).filter((v) => v !== null));
    const allVisible = runs.flatMap((r) => r.visibleMs);
    const result = {
      database: kind,
      runs: runs.length,
      idle: { serviceUsPerSecond: idleMedian, databaseUsPerSecond: databaseMedian },
      idleRuns: runs.map((r) => r.idle),
      visibleMs: { median: medianOf(allVisible), p95: percentileOf(allVisible, 0.95), max: Math.max(...allVisible) },
      visibleRuns: runs.map((r) => ({ median: medianOf(r.visibleMs), max: Math.max(...r.visibleMs) })),
      acknowledgedMs: { median: medianOf(runs.flatMap((r) => r.acknowledgedMs)) },
      afterAnswerMs: {
        median: medianOf(runs.flatMap((r) => r.afterAnswerMs)),
        max: Math.max(...runs.flatMap((r) => r.afterAnswerMs)),
      },
      commandMs: runs.flatMap((r) => r.commandMs),
    };
    report.changeFeed.push(result);
    const group = { links, database: kind };
    if (idleMedian !== null) {
      const percent = idleMedian / 1e4;
      report.check({
        ...group,
        name: `idle serving instance ≤ ${IDLE_CPU_TARGET_PERCENT} % of a core, hearing changes without Redis`,
        ...targetCheck(options, percent <= IDLE_CPU_TARGET_PERCENT),
        detail: `${percent.toFixed(2)} %, the median run (runs ${runs.map((r) => formatIdle(r.idle)).join('; ')})`,
      });
    }
    const afterCommands = result.commandMs.map((c) => c.afterEnd);
    report.check({
      ...group,
      name: `\`shortlink account disable\` and \`enable\` answered by an instance ≤ ${CHANGE_VISIBLE_TARGET_MS} ms after the command ends, no Redis`,
      ...targetCheck(options, Math.max(...afterCommands) <= CHANGE_VISIBLE_TARGET_MS),
      detail: result.commandMs
        .map((c) => `${c.command} ${Math.round(c.afterEnd)} ms (${Math.round(c.total)} from its start)`)
        .join(', '),
    });
    report.check({
      ...group,
      name: `a change through one instance answered by the other ≤ ${CHANGE_VISIBLE_TARGET_MS} ms, no Redis`,
      ...targetCheck(options, result.visibleMs.max <= CHANGE_VISIBLE_TARGET_MS),
      detail: `${allVisible.length} edits: median ${Math.round(result.visibleMs.median)} ms, p95 ${Math.round(result.visibleMs.p95)}, slowest ${Math.round(result.visibleMs.max)} (runs' medians ${result.visibleRuns.map((r) => Math.round(r.median)).join(', ')}; acknowledged in ${Math.round(result.acknowledgedMs.median)} ms, answered by the other ${Math.round(result.afterAnswerMs.median)} ms after that, ${Math.round(result.afterAnswerMs.max)} at most)`,
    });
  } finally {
    for (const service of services) await service.proc.stop('SIGTERM');
    await database.drop();
  }
}

/**
 * CPU used so far by all of a process's threads, in µs, from the scheduler's nanosecond counts
 * (/proc/PID/task/TID/schedstat): /proc/PID/stat counts in 10 ms ticks, as coarse as the idle
 * figure itself over a few seconds. Null where it cannot be read.
 */
function threadsCpuMicros(pid) {
  try {
    let nanos = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`))
      nanos += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    return nanos / 1000;
  } catch {
    return null;
  }
}

/** "0.12 % of a core (1,234 µs/s)", the database server's share after a `+` where measured. */
function formatIdle({ serviceUsPerSecond, databaseUsPerSecond }) {
  if (serviceUsPerSecond === null) return '—';
  const database = databaseUsPerSecond === null ? '' : ` + ${Math.round(databaseUsPerSecond).toLocaleString('en')}`;
  return `${(serviceUsPerSecond / 1e4).toFixed(2)} % of a core (${Math.round(serviceUsPerSecond).toLocaleString('en')}${database} µs/s)`;
}

/** "median 120 ms, slowest 240" of a list of times. */
function summarize(ms) {
  return `median ${Math.round(medianOf(ms))} ms, slowest ${Math.round(Math.max(...ms))}`;
}

/** The value below which `share` of the values lie (nearest rank). */
function percentileOf(values, share) {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)];
}

/**
 * One check per database kind and link count within MEMORY_BUDGET: the highest peak RSS of this
 * build's service over all its rows (every instance the group started: cached redirects, cold
 * lookups and the API).
 */
function checkMemoryBudget(options, report) {
  const groups = new Map();
  for (const row of report.rows) {
    if (row.target !== 'shortlink' || row.links > MEMORY_BUDGET.links || row.result.rss.peakMiB === null) continue;
    const key = `${row.links}/${row.database}`;
    const worst = groups.get(key);
    if (!worst || row.result.rss.peakMiB > worst.result.rss.peakMiB) groups.set(key, row);
  }
  for (const row of groups.values()) {
    const peak = row.result.rss.peakMiB;
    report.check({
      links: row.links,
      database: row.database,
      name: `peak RSS ≤ ${MEMORY_BUDGET.peakMiB} MiB`,
      ...targetCheck(options, peak <= MEMORY_BUDGET.peakMiB),
      detail: `${Math.round(peak)} MiB at most, in "${row.scenario}"`,
    });
  }
}

/** What went wrong in a measurement: unexpected statuses, socket errors, timeouts, silence. */
function problemsOf(result, expected) {
  const unexpected = Object.entries(result.statusCodes).filter(([code]) => code !== expected);
  return [
    ...unexpected.map(([code, count]) => `${count}× HTTP ${code}`),
    ...(result.errors ? [`${result.errors} errors`] : []),
    ...(result.timeouts ? [`${result.timeouts} timeouts`] : []),
    ...(result.answered === 0 ? ['no answers'] : []),
  ];
}

/**
 * A performance target's verdict: `met` says whether the figure reached it, `ok` whether the run
 * passes. --smoke measures too briefly for targets to mean anything, so it reports a miss without
 * failing (and without a ✓ that would say the target was met).
 */
/** The options of a row whose target is a ratio: at least RATIO_MIN_RUNS rounds (see there). */
function ratioOptions(options) {
  return options.smoke ? options : { ...options, runs: Math.max(options.runs, RATIO_MIN_RUNS) };
}

/**
 * The cached-redirect target, per round: this build's req/s over bare node:http's in the same
 * round (the two measured one after the other), then the median of those ratios.
 */
function checkCachedRedirectRatio(options, report, group, targets, results) {
  const service = targets.findIndex((t) => t.name === 'shortlink');
  const baseline = targets.findIndex((t) => t.name === 'node:http');
  if (service < 0 || baseline < 0) return;
  const rounds = results[service].runs.map((perSecond, i) => perSecond / results[baseline].runs[i]);
  const ratio = medianOf(rounds);
  report.check({
    ...group,
    name: `redirect hit ≥ ${HIT_TARGET.toFixed(2)} × node:http (median of ${rounds.length} interleaved rounds)`,
    ...targetCheck(options, ratio >= HIT_TARGET),
    detail: `${ratio.toFixed(2)} × (rounds ${rounds.map((r) => r.toFixed(2)).join(', ')}; req/s ${results[service].runs.map((r) => Math.round(r)).join(', ')} against ${results[baseline].runs.map((r) => Math.round(r)).join(', ')}; CPU ${results[service].cpuRuns.map((c) => (c === null ? '–' : c.toFixed(1))).join(', ')} against ${results[baseline].cpuRuns.map((c) => (c === null ? '–' : c.toFixed(1))).join(', ')} µs per redirect)`,
  });
}

function targetCheck(options, met) {
  return { met, ok: options.smoke || met };
}

function createReport() {
  const rows = [];
  const checks = [];
  const flatCost = [];
  const changeFeed = [];
  return {
    rows,
    checks,
    flatCost,
    changeFeed,
    /** Both sizes of a flat-cost comparison; every redirect must have answered 302. */
    compareSizes(comparison) {
      const change = (metric) => (metric(comparison.large) - metric(comparison.small)) / metric(comparison.small);
      const problems = ['small', 'large'].flatMap((size, i) =>
        problemsOf(comparison[size], '302').map((problem) => `${comparison.sizes[i]} links: ${problem}`),
      );
      flatCost.push({
        ...comparison,
        throughputChange: change((r) => r.requestsPerSecond),
        p99Change: change((r) => r.latencyMs.p99),
        cpuChange: totalCpu(comparison.small) === null || totalCpu(comparison.large) === null ? null : change(totalCpu),
        ok: problems.length === 0,
        problems,
      });
      if (problems.length) log(`    ! ${problems.join(', ')}`);
    },
    row(row) {
      const problems = problemsOf(row.result, row.expected);
      rows.push({ ...row, group: `${row.links}/${row.group ?? ''}`, ok: problems.length === 0, problems });
      if (problems.length) log(`    ! ${problems.join(', ')}`);
    },
    check(check) {
      checks.push(check);
      const mark = check.ok && check.met === false ? '– (missed; not enforced by --smoke)' : check.ok ? '✓' : '✗';
      log(`    ${mark} ${check.name}: ${check.detail}`);
    },
    /** Ratio of each row to bare node:http measured beside it (same request pattern and group). */
    withRatios() {
      return rows.map((row) => {
        const reference = rows.find(
          (r) =>
            r.target === 'node:http' && r.scenario === row.scenario && r.links === row.links && r.group === row.group,
        );
        return { ...row, ratio: reference ? row.result.requestsPerSecond / reference.result.requestsPerSecond : null };
      });
    },
  };
}

async function main() {
  const options = readOptions();
  if (!existsSync(SERVICE_ENTRY))
    throw new Error(`${SERVICE_ENTRY} is missing: run \`npm run bench\` (it builds first) or \`nest build\``);
  const startedAt = new Date();
  const loadBefore = os.loadavg();
  log(
    `shortlink benchmark · ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'} · node ${process.version} · load average ${loadBefore.map((n) => n.toFixed(2)).join(' ')}`,
  );
  if (loadBefore[0] > os.cpus().length * 0.5)
    log('  warning: the machine is busy; figures will be lower and noisier than on an idle machine');
  log(
    `  service env: ${Object.entries(UNLIMITED_ENV)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')} LOG_LEVEL=${options.logLevel} (rate limits raised so no request is refused)`,
  );
  const report = createReport();
  // The change feed runs on databases of its own, once per kind (runChangeFeed).
  const grouped = [...options.scenarios].some((id) => id !== 'changes');
  for (const links of grouped ? options.links : []) {
    log(`\n${links.toLocaleString('en')} links`);
    for (const kind of options.databases) await runGroup(options, kind, links, report);
  }
  if (grouped && options.links.length > 1)
    for (const kind of options.databases) await runFlatCost(options, kind, report);
  if (options.scenarios.has('changes'))
    for (const kind of options.databases) await runChangeFeed(options, kind, report);
  checkMemoryBudget(options, report);
  const rows = report.withRatios();
  const finishedAt = new Date();
  const meta = {
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    machine: {
      cpus: os.cpus().length,
      model: os.cpus()[0]?.model,
      memoryGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
      node: process.version,
      loadAverageBefore: loadBefore,
      loadAverageAfter: os.loadavg(),
    },
    options: { ...options, scenarios: [...options.scenarios], apiConnections: API_CONNECTIONS, hotCodes: HOT_CODES },
    serviceEnv: { ...UNLIMITED_ENV, LOG_LEVEL: options.logLevel, missScenario: MISS_SERVICE_ENV },
  };
  if (rows.length) console.log(`\n${formatTable(rows)}`);
  console.log(
    `\nmeasured ${startedAt.toISOString()} · ${options.duration} s per row after ${options.warmup} s warm-up · ${options.runs === 1 ? 'one run' : `median of ${options.runs} runs`} · redirects at ${options.connections} connections, API at ${API_CONNECTIONS} · load average before/after ${loadBefore[0].toFixed(2)}/${os.loadavg()[0].toFixed(2)}`,
  );
  console.log(
    '× node:http = throughput relative to bare node:http on the same request pattern; RSS = peak resident memory of the server during the row',
  );
  console.log(
    'CPU µs/req = CPU time of the server process (all its threads) per answered request, median of the runs; "a + b": b is the local PostgreSQL server\'s processes for that database (its backends and autovacuum, plus the WAL writer, checkpointer and background writer)',
  );
  if (report.flatCost.length) {
    console.log(
      `\nFlat cost: the same scenario on ${report.flatCost[0].sizes.map((n) => n.toLocaleString('en')).join(' and ')} links, measured interleaved\n`,
    );
    console.log(formatFlatCostTable(report.flatCost));
  }
  if (report.changeFeed.length) {
    console.log(
      `\nChange feed: two instances on one database, no Redis; the idle one's CPU over ${options.duration} s, and ${options.smoke ? 3 : CHANGE_EDITS} edits through one instance's API per run, each timed from the request until the other answers the new target\n`,
    );
    console.log(formatChangeFeedTable(report.changeFeed));
  }
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(
    RESULTS_FILE,
    `${JSON.stringify({ ...meta, rows, flatCost: report.flatCost, changeFeed: report.changeFeed, checks: report.checks }, null, 2)}\n`,
  );
  console.log(`written to ${RESULTS_FILE.replace(`${ROOT}/`, '')}`);

  const failed = [
    ...rows.filter((r) => !r.ok).map((r) => `${r.target} ${r.database} ${r.scenario}: ${r.problems.join(', ')}`),
    ...report.checks.filter((c) => !c.ok).map((c) => `${c.database} ${c.name}: ${c.detail}`),
    ...report.flatCost
      .filter((c) => !c.ok)
      .map((c) => `flat cost ${c.database} ${c.scenario}: ${c.problems.join(', ')}`),
  ];
  if (failed.length) {
    console.error(`\n${failed.length} problem(s):\n  ${failed.join('\n  ')}`);
    process.exitCode = 1;
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
