#!/usr/bin/env node
// Plain-SQL measurement of ways to write click counts into PostgreSQL, over N links with
// uniformly random codes (the benchmark's cold-redirect pattern). Not the service: a design
// study, so that the figures quoted in the README ("Known limits") can be reproduced.
//
// For each link count and fill factor of `links` it measures, as the database server's CPU (the
// backend's utime + stime from /proc, `cpuMicros`) per code and per click, and WAL bytes per code:
//   - per-second flushes: what the service does today, each second's distinct codes in
//     `UPDATE … FROM unnest()` statements of 500 codes;
//   - a fold of a minute's counts in one statement (the planner joins by hash over a sequential
//     scan of `links`, so rows are updated in the table's physical order), and the same counts
//     in statements of 20,000 codes (index lookups, random order);
//   - appending a second's counts to a log as one row of two arrays (what a fold would read).
//
// Usage: node bench/studies/postgres-click-writes.mjs [--links 10000,1000000] [--fillfactors 100,45]
//        [--rate 36000]   (needs `npm run build` for the migrations, and PostgreSQL on this
//        machine at BENCH_POSTGRES_URL, default postgresql://postgres@127.0.0.1:5432/postgres)
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { seededCode } from '../lib/codes.mjs';
import { cpuMicros } from '../lib/processes.mjs';
import { benchAccount, seedPostgres } from '../lib/seed.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const { values: flags } = parseArgs({
  options: {
    links: { type: 'string', default: '10000,1000000' },
    fillfactors: { type: 'string', default: '100,45' },
    rate: { type: 'string', default: '36000' },
  },
});
const list = (text) => text.split(',').map((part) => Number(part.replaceAll('_', '')));
const RATE = Number(flags.rate);
const UPDATE = `UPDATE links SET clicks = links.clicks + c.n
                FROM unnest($1::text[], $2::int[]) AS c(code, n) WHERE links.code = c.code`;

async function admin(sql) {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The codes visited by `seconds` of clicks at RATE per second, with their counts. */
function clicks(links, seconds) {
  const counts = new Map();
  for (let i = 0; i < RATE * seconds; i++) {
    const code = seededCode(Math.floor(Math.random() * links));
    counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  return { counts, clicks: RATE * seconds };
}

async function measure(links, fillfactor) {
  const name = `shortlink_clicks_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  const rows = [];
  try {
    const { prepareDatabase } = await import(
      pathToFileURL(join(ROOT, 'dist', 'src', 'database', 'startup-migrations.js')).href
    );
    await prepareDatabase(url.toString(), { migrateOnStart: true, log: () => undefined });
    await seedPostgres(url.toString(), links, benchAccount());
    await client.connect();
    // The fill factor applies to pages written from now on: rewrite the table under it.
    await client.query(`ALTER TABLE links SET (fillfactor = ${fillfactor})`);
    await client.query('VACUUM FULL links');
    await client.query('VACUUM ANALYZE links');
    await client.query(
      'CREATE TABLE click_log (id bigserial PRIMARY KEY, codes text[] NOT NULL, counts int[] NOT NULL)',
    );
    const { pid } = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0];
    const lsn = async () => (await client.query('SELECT pg_current_wal_lsn() AS lsn')).rows[0].lsn;
    const walBytes = async (from) =>
      Number((await client.query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS d', [from])).rows[0].d);

    const run = async (design, rounds, seconds, write) => {
      let cpu = 0,
        codes = 0,
        clicked = 0,
        wal = 0;
      for (let round = 0; round < rounds; round++) {
        const batch = clicks(links, seconds);
        const from = await lsn();
        const before = cpuMicros(pid);
        await write(batch.counts);
        cpu += cpuMicros(pid) - before;
        wal += await walBytes(from);
        codes += batch.counts.size;
        clicked += batch.clicks;
      }
      rows.push({
        links,
        fillfactor,
        design,
        codesPerRound: Math.round(codes / rounds),
        cpuPerCode: cpu / codes,
        cpuPerClick: cpu / clicked,
        walPerCode: wal / codes,
      });
    };
    const updateIn = (size) => async (counts) => {
      const entries = [...counts];
      for (let at = 0; at < entries.length; at += size) {
        const part = entries.slice(at, at + size);
        await client.query(UPDATE, [part.map(([code]) => code), part.map(([, n]) => n)]);
      }
    };
    await client.query('CHECKPOINT');
    await run('per-second flushes, 500 codes a statement', 10, 1, updateIn(500));
    await run('fold of 60 s, one statement', 3, 60, updateIn(Infinity));
    await run('fold of 60 s, 20,000 codes a statement', 2, 60, updateIn(20_000));
    await run('log: one row of arrays per second', 10, 1, (counts) =>
      client.query('INSERT INTO click_log (codes, counts) VALUES ($1, $2)', [[...counts.keys()], [...counts.values()]]),
    );
    const { size } = (await client.query("SELECT pg_size_pretty(pg_table_size('links')) AS size")).rows[0];
    console.log(`${links.toLocaleString('en-US')} links, fillfactor ${fillfactor}: links table ${size} at the end`);
  } finally {
    await client.end().catch(() => undefined);
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
  return rows;
}

const results = [];
for (const links of list(flags.links)) {
  for (const fillfactor of list(flags.fillfactors)) results.push(...(await measure(links, fillfactor)));
}
console.log(
  `\nServer CPU per click write, ${RATE.toLocaleString('en-US')} clicks a second over uniformly random codes`,
);
console.table(
  results.map((row) => ({
    links: row.links.toLocaleString('en-US'),
    fillfactor: row.fillfactor,
    design: row.design,
    'codes/round': row.codesPerRound,
    'µs/code': Number(row.cpuPerCode.toFixed(2)),
    'µs/click': Number(row.cpuPerClick.toFixed(2)),
    'WAL B/code': Math.round(row.walPerCode),
  })),
);
