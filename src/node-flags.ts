/**
 * Node.js options the service must be started with: `node <NODE_FLAGS> dist/src/main.js`.
 *
 * They cannot be set from main.ts: V8 sizes its heap when the process starts, before any of the
 * service's code runs (the flags it can take later are set in main.ts's tuneV8). This list is the
 * one source of truth: package.json's `start` and `start:prod`, the Dockerfile's CMD and the
 * docs repeat it (node-flags.spec.ts fails when they drift), the benchmark starts the service
 * with it (bench/run.mjs reads it from the build it measures), and main.ts logs a warning when
 * the service was started without it.
 *
 * - `--max-semi-space-size=8`: V8's young generation, where every request's short-lived objects
 *   start, is two semi-spaces that grow under load to V8's maximum of 16 MB each on 64-bit: 32 MiB
 *   of RSS held from the first busy second on. 8 MB each keeps it at 16 MiB for no measurable
 *   CPU (docs/performance.md, "Memory"; 4 MB promoted the API's objects and cost the list 17 %).
 * - `--v8-pool-size=1`: V8's platform threads, which help the garbage collector and compile in the
 *   background, one instead of node's default of four. Each of them that allocates gets a malloc
 *   arena of its own, which keeps what it freed: 6-12 MiB of RSS at every row of the benchmark on
 *   SQLite. The main thread does a larger share of the collector's work; the process's CPU per
 *   request stayed within the spread (docs/performance.md, "Memory").
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8', '--v8-pool-size=1'];

/**
 * Environment variables the service must be started with, beside NODE_FLAGS, for the same reason:
 * the C library reads them only when the process starts. The same places repeat them
 * (package.json's start scripts, the Dockerfile's ENV, the docs; node-flags.spec.ts), the
 * benchmark sets them, and main.ts warns when one is missing.
 *
 * - `MALLOC_ARENA_MAX=2`: glibc gives every thread that allocates (the SQLite writer, V8's
 *   background thread, libuv's pool) a malloc arena of its own, up to eight per core, and an arena
 *   keeps what was freed in it: 14 MiB in four such arenas at the benchmark's rows on SQLite. With
 *   two, all threads share the main thread's arena and one more (glibc hands them out in turn):
 *   5-10 MiB less at every row, and no CPU cost the benchmark could resolve (docs/performance.md,
 *   "Memory"). C libraries other than glibc ignore it.
 */
export const START_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

/** The shell command that starts the built service as it must be: START_ENV, then node with NODE_FLAGS. */
export function startCommand(): string {
  // Every setting is missing from an empty environment, so this is all of START_ENV.
  return [...missingStartEnv({}), 'node', ...NODE_FLAGS, 'dist/src/main.js'].join(' ');
}

/** START_ENV's settings that `env` lacks or sets to something else, as a shell writes them: `NAME=value`. */
export function missingStartEnv(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(START_ENV)
    .filter(([name, value]) => env[name] !== value)
    .map(([name, value]) => `${name}=${value}`);
}

/** The flags of NODE_FLAGS this process was started without (on node's command line or in NODE_OPTIONS). */
export function missingNodeFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const given = new Set([...execArgv, ...(nodeOptions ?? '').split(/\s+/)]);
  return NODE_FLAGS.filter((flag) => !given.has(flag));
}

/**
 * The `--max-semi-space-size` (MB) node was started with, on its command line or in NODE_OPTIONS
 * (the command line wins, as in node); 0, V8's "choose it yourself", when neither sets it. The
 * SQLite writer's thread needs it (see src/database/sqlite-background-writer.ts).
 */
export function semiSpaceFlagMb(execArgv: readonly string[], nodeOptions: string | undefined): number {
  const args = [...(nodeOptions ?? '').split(/\s+/), ...execArgv];
  let mb = 0;
  for (let i = 0; i < args.length; i++) {
    const flag = args[i].replaceAll('_', '-');
    const inline = /^--max-semi-space-size=(\d+)$/.exec(flag);
    if (inline) mb = Number(inline[1]);
    else if (flag === '--max-semi-space-size' && /^\d+$/.test(args[i + 1] ?? '')) mb = Number(args[++i]);
  }
  return mb;
}
