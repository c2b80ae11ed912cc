import type { ChildProcess } from 'node:child_process';
import { freePort } from './free-port.js';
import { completion, spawnSource, type ProcessResult } from './run-source.js';

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Everything the process has written so far (pino writes its JSON lines to stdout). */
  output(): { stdout: string; stderr: string };
  /** Resolves when the process has exited. */
  exited: Promise<ProcessResult>;
  /** SIGTERM, then the exit result. */
  stop(): Promise<ProcessResult>;
}

/**
 * Starts the real server (`src/main.ts`, as `npm start` runs it, but from the TypeScript source)
 * as a child process and waits until `GET /health` answers.
 */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawnSource('src/main.ts', [], { HOST: '127.0.0.1', PORT: String(port), ...env });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = completion(child).then((result) => ({ ...result, stdout, stderr }));
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const baseUrl = `http://127.0.0.1:${port}`;

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (hasExited) throw new Error(`The server exited during start-up:\n${stdout}\n${stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The server did not answer within 30 s:\n${stdout}\n${stderr}`);
    }
    try {
      if ((await fetch(`${baseUrl}/health`)).ok) break;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    child,
    baseUrl,
    output: () => ({ stdout, stderr }),
    exited,
    stop: async () => {
      if (!hasExited) child.kill('SIGTERM');
      return exited;
    },
  };
}
