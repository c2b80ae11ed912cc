#!/usr/bin/env node
// `shortlink links import` of a large CSV, as an admin runs it: the built CLI (dist/) as a child
// process on a fresh database, importing a generated file of N rows (a custom code and a URL each,
// as a YOURLS or Shlink export has). Prints, per database kind and N, the wall time, rows per
// second and the CLI's peak resident memory. Run with two or more sizes, the peaks show whether
// memory grows with the file (it must not: the import streams, 1000 rows at a time).
//
//   node bench/import.mjs [--rows 100000,1000000] [--postgres]   (after `npm run build`)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sampleRss } from './lib/processes.mjs';
import { formatTable } from './lib/report.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const EMAIL = 'import@example.com';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '100000,1000000' }, postgres: { type: 'boolean', default: false } },
});
const sizes = values.rows.split(',').map((n) => Number(n.replaceAll('_', '')));
const kinds = values.postgres ? ['sqlite', 'postgresql'] : ['sqlite'];
const log = (message) => process.stderr.write(`${message}\n`);

/** A CSV of `rows` links, written as a stream (the file, not the generator, is what is big). */
async function writeCsv(file, rows) {
  const out = createWriteStream(file);
  out.write('shortCode,longUrl,title\r\n');
  for (let i = 0; i < rows; i++) {
    const line = `imp${i.toString(36)},https://example.com/imported/${i}?utm_source=import,"Title, ${i}"\r\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** Runs the CLI; resolves with its exit status, output and peak RSS. */
async function cli(args, env) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const rss = sampleRss(/** @type {number} */ (child.pid), 100);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout = (stdout + chunk).slice(-4000)));
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const [code] = await once(child, 'exit');
  const { peakMiB } = rss.stop();
  return { code, stdout, stderr, peakMiB };
}

async function freshDatabase(kind, dir) {
  if (kind === 'sqlite') return { url: `file:${join(dir, 'import.db')}`, drop: async () => undefined };
  const name = `shortlink_import_${randomBytes(5).toString('hex')}`;
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    // The CLI creates the database; dropping it needs the admin connection.
    url: url.toString(),
    drop: async () => {
      const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}

const rows = [];
const dir = mkdtempSync(join(os.tmpdir(), 'shortlink-import-'));
try {
  for (const size of sizes) {
    const file = join(dir, `links-${size}.csv`);
    await writeCsv(file, size);
    const fileMiB = statSync(file).size / 2 ** 20;
    for (const kind of kinds) {
      const database = await freshDatabase(kind, dir);
      try {
        const env = { DATABASE_URL: database.url, LOG_LEVEL: 'warn' };
        const account = await cli(['account', 'create', EMAIL], env);
        if (account.code !== 0) throw new Error(`account create failed: ${account.stderr}`);
        log(`importing ${size.toLocaleString('en')} rows (${fileMiB.toFixed(0)} MiB) on ${kind}`);
        const started = process.hrtime.bigint();
        const result = await cli(['links', 'import', EMAIL, file], env);
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const summary = result.stdout.trim().split('\n').at(-1);
        if (result.code !== 0 || summary !== `created ${size}, skipped 0 (code taken), invalid 0`) {
          throw new Error(`import failed (${result.code}): ${summary}\n${result.stderr}`);
        }
        rows.push({ kind, size, fileMiB, seconds, peakMiB: result.peakMiB });
      } finally {
        await database.drop();
        rmSync(join(dir, 'import.db'), { force: true });
        rmSync(join(dir, 'import.db-wal'), { force: true });
        rmSync(join(dir, 'import.db-shm'), { force: true });
      }
    }
    rmSync(file);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(
  formatTable(rows, [
    { title: 'database', value: (r) => r.kind },
    { title: 'rows', value: (r) => r.size.toLocaleString('en'), right: true },
    { title: 'file MiB', value: (r) => r.fileMiB.toFixed(0), right: true },
    { title: 'seconds', value: (r) => r.seconds.toFixed(1), right: true },
    { title: 'rows/s', value: (r) => Math.round(r.size / r.seconds).toLocaleString('en'), right: true },
    { title: 'peak RSS MiB', value: (r) => r.peakMiB.toFixed(0), right: true },
  ]),
);
console.log(
  `\n${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'} · node ${process.version} · load average ${os.loadavg()[0].toFixed(2)}`,
);
