import { Readable } from 'node:stream';
import { runCli } from '../../../src/cli/cli.js';
import { childEnv, type ProcessResult } from './run-source.js';

/**
 * Runs a `shortlink` command in this process through `runCli` (what `src/cli/main.ts` calls),
 * with the environment, stdin, stdout and stderr a real process would have: a process per
 * command costs seconds of compiling and booting. `test/cli.e2e-spec.ts` keeps one real-process
 * spec for what only a process shows.
 */
export async function shortlinkInProcess(
  args: string[],
  env: Record<string, string>,
  stdin?: string,
): Promise<ProcessResult> {
  let stdout = '';
  let stderr = '';
  const output = { out: (text: string) => void (stdout += text), err: (text: string) => void (stderr += text) };
  const input = Readable.from(stdin === undefined ? [] : [Buffer.from(stdin)]);
  const status = await runCli(args, childEnv(env), output, input);
  return { status, signal: null, stdout, stderr };
}
