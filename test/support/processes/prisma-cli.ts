import { spawnSync } from 'node:child_process';
import { PROJECT_ROOT } from './run-source.js';

/**
 * The real Prisma CLI (`npx prisma …`), run the way a developer runs it from the repository root,
 * on `databaseUrl` (and `shadowDatabaseUrl`, when given): on the WebAssembly schema engine that
 * prisma.config.ts selects (no PRISMA_SCHEMA_ENGINE_BINARY), with an engines mirror that cannot
 * answer (any download attempt fails), and without Jest's NODE_OPTIONS.
 */
export function runPrismaCli(
  args: string[],
  databaseUrl: string,
  shadowDatabaseUrl?: string,
): { status: number | null; stdout: string; stderr: string; output: string } {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    PRISMA_ENGINES_MIRROR: 'http://127.0.0.1:9',
    CHECKPOINT_DISABLE: '1',
  };
  delete env.PRISMA_SCHEMA_ENGINE_BINARY;
  delete env.SHADOW_DATABASE_URL;
  if (shadowDatabaseUrl) env.SHADOW_DATABASE_URL = shadowDatabaseUrl;
  delete env.NODE_OPTIONS; // Jest's --experimental-vm-modules is not for the CLI
  const run = spawnSync('npx', ['prisma', ...args], { cwd: PROJECT_ROOT, env, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, output: run.stdout + run.stderr };
}
