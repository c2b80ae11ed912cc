import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root: child processes run from here. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REGISTER = fileURLToPath(new URL('../swc-register.mjs', import.meta.url));

export interface ProcessResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a child process: the test's own, minus Jest's NODE_OPTIONS (VM modules) and
 * any configuration that would leak in from the developer's shell.
 */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = { ...process.env };
  delete inherited.NODE_OPTIONS;
  for (const key of ['PORT', 'HOST', 'DATABASE_URL', 'SHORT_BASE_URL', 'REDIS_URL', 'LOG_LEVEL', 'MIGRATE_ON_START']) {
    delete inherited[key];
  }
  return { ...inherited, ...env };
}

/**
 * Starts a TypeScript entry point (e.g. `src/main.ts`) as a real Node process, compiled on the
 * fly by SWC like under Jest: no `npm run build` needed, and always the current sources.
 */
export function spawnSource(
  entry: string,
  args: string[] = [],
  env: Record<string, string> = {},
  stdin: 'ignore' | 'pipe' = 'ignore',
): ChildProcess {
  return spawn(process.execPath, ['--import', REGISTER, entry, ...args], {
    cwd: PROJECT_ROOT,
    env: childEnv(env),
    stdio: [stdin, 'pipe', 'pipe'],
  });
}

/** Waits for a child process to exit and collects its output. */
export function completion(child: ChildProcess): Promise<ProcessResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}

/** Runs a TypeScript entry point to completion, with `input` (when given) as all of its stdin. */
export function runSource(
  entry: string,
  args: string[] = [],
  env: Record<string, string> = {},
  input?: string,
): Promise<ProcessResult> {
  const child = spawnSource(entry, args, env, input === undefined ? 'ignore' : 'pipe');
  child.stdin?.end(input);
  return completion(child);
}
