// Starting, watching and stopping the processes under test.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A free loopback port, found by letting the kernel choose one. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/** Every child still running, killed if the runner exits early (an error, Ctrl-C). */
const running = new Set();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

/**
 * A child process under test. Its stdout (the request log, for the service) goes to /dev/null so
 * reading it costs the runner nothing; the tail of stderr is kept for error messages.
 * @param {string} name
 * @param {string[]} args  node arguments
 * @param {{ env?: NodeJS.ProcessEnv, cwd?: string, stdout?: 'ignore' | 'pipe', node?: string }} [options]
 *   `node`: the binary (default the one running the benchmark)
 */
export function startProcess(name, args, options = {}) {
  const child = spawn(options.node ?? process.execPath, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', options.stdout ?? 'ignore', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-8000);
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    name,
    child,
    pid: /** @type {number} */ (child.pid),
    exited,
    stderr: () => stderr,
    /** @param {NodeJS.Signals} [signal] */
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

/**
 * Resolves once `url` answers as `ready` wants (by default 200; a redirect is not followed), fails
 * if the process exits first or `timeoutMs` passes.
 * @param {{ name: string, exited: Promise<unknown>, stderr: () => string }} proc
 * @param {string} url
 * @param {{ timeoutMs?: number, ready?: (response: Response) => boolean }} [options]
 */
export async function waitForHttp(proc, url, { timeoutMs = 120_000, ready = (response) => response.ok } = {}) {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void proc.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${proc.name} exited during start-up:\n${proc.stderr()}`);
    try {
      if (ready(await fetch(url, { redirect: 'manual' }))) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${proc.name} did not answer ${url} within ${timeoutMs / 1000} s:\n${proc.stderr()}`);
}

/**
 * Resident set size of a process in MiB, from /proc (Linux only; null elsewhere).
 * @param {number} pid
 */
export function rssMiB(pid) {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Samples a process's RSS every `intervalMs` until stopped; returns the peak and the last value.
 * @param {number} pid
 */
export function sampleRss(pid, intervalMs = 200) {
  let peak = rssMiB(pid);
  let last = peak;
  const timer = setInterval(() => {
    last = rssMiB(pid);
    if (last !== null && (peak === null || last > peak)) peak = last;
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      last = rssMiB(pid) ?? last;
      if (last !== null && (peak === null || last > peak)) peak = last;
      return { peakMiB: peak, endMiB: last };
    },
  };
}

/** Clock ticks per second of the CPU times in /proc (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, all threads) a process has used so far, in µs, from /proc (Linux
 * only; null elsewhere or once it has exited).
 * @param {number | string} pid
 */
export function cpuMicros(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may hold spaces; utime and stime are the 12th and 13th
    // fields after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * CPU used so far, per process, by a PostgreSQL server on this machine on behalf of database
 * `name`: its backends and autovacuum workers (their process titles name the database), and the
 * WAL writer, checkpointer and background writer, which work for every database. A Map of pid to
 * µs; the difference of two snapshots is what the database cost in between.
 * @param {string} name
 */
export function postgresCpuSnapshot(name) {
  const ownDatabase = new RegExp(`\\s${name.replace(/[^\w]/g, '\\$&')}(\\s|$)`);
  const shared = /: (walwriter|checkpointer|background writer)\s*$/;
  /** @type {Map<string, number>} */
  const snapshot = new Map();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trimEnd();
      if (!ownDatabase.test(title) && !shared.test(title)) continue;
      const cpu = cpuMicros(pid);
      if (cpu !== null) snapshot.set(pid, cpu);
    } catch {
      // The process exited meanwhile.
    }
  }
  return snapshot;
}

/**
 * CPU spent between two snapshots of `postgresCpuSnapshot`, in µs. Processes that started in
 * between count whole; the CPU of those that exited in between is lost (pooled connections
 * live as long as the service).
 * @param {Map<string, number>} before
 * @param {Map<string, number>} after
 */
export function cpuSpentBetween(before, after) {
  let total = 0;
  for (const [pid, cpu] of after) total += cpu - (before.get(pid) ?? 0);
  return total;
}
