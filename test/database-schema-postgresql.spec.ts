// `?schema=` in DATABASE_URL means one schema to the migrator and to the running service: the
// migrations (the Prisma CLI's and those at start-up) create the tables there, and the service's
// reads and writes (Prisma, and the pg pools of link inserts, redirect lookups and click
// flushes) go there too, never to `public`. PostgreSQL only, so this spec makes its own databases.
import { randomBytes } from 'node:crypto';
import { DATABASE_CONNECTIONS } from '../src/database/database-connections.js';
import type { PostgresPools } from '../src/database/postgres-pools.js';
import { PrismaService } from '../src/database/prisma.service.js';
import { eventually } from './support/eventually.js';
import { createAccountWithToken } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { createTestDatabase, withPostgres, type TestDatabase } from './support/database/test-database.js';
import { runPrismaCli } from './support/processes/prisma-cli.js';

/** Plain SQL on the database, on a connection with the default search_path. */
async function query<Row>(url: string, sql: string, values: unknown[] = []): Promise<Row[]> {
  const parsed = new URL(url);
  parsed.search = '';
  return withPostgres(parsed.toString(), async (client) => (await client.query(sql, values)).rows as Row[]);
}

/** Schema → tables, of every schema but PostgreSQL's own. */
async function tablesBySchema(url: string): Promise<Record<string, string[]>> {
  const rows = await query<{ table_schema: string; table_name: string }>(
    url,
    `SELECT table_schema, table_name FROM information_schema.tables
     WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
  );
  const tables: Record<string, string[]> = {};
  for (const { table_schema, table_name } of rows) (tables[table_schema] ??= []).push(table_name);
  return tables;
}

/**
 * Creates a link through the API with a token (read without Prisma, on the hot pool), follows it
 * once (a cold lookup, on the hot pool) and waits for the click to be flushed.
 */
async function createAndFollow(testApp: TestApp, url: string, schema: string): Promise<string> {
  const { apiKey } = await createAccountWithToken(testApp);
  const created = await testApp.request('/api/links', {
    method: 'POST',
    // Idempotency records are written through Prisma, the link itself through the pg pool.
    headers: { ...apiKey, 'idempotency-key': `schema-spec-${randomBytes(4).toString('hex')}` },
    json: { url: 'https://example.com/in/the/schema' },
  });
  expect(created.status).toBe(201);
  const { code } = (await created.json()) as { code: string };

  const redirect = await testApp.request(`/${code}`);
  expect(redirect.status).toBe(302);
  expect(redirect.headers.get('location')).toBe('https://example.com/in/the/schema');

  await eventually(async () => {
    const rows = await query<{ clicks: number }>(url, `SELECT clicks FROM "${schema}".links WHERE code = $1`, [code]);
    expect(rows).toEqual([{ clicks: 1 }]);
  });
  const idempotency = await query<{ n: number }>(url, `SELECT count(*)::int AS n FROM "${schema}".idempotency_records`);
  expect(idempotency).toEqual([{ n: 1 }]);
  return code;
}

describe('DATABASE_URL ?schema= on PostgreSQL', () => {
  let database: TestDatabase;
  let testApp: TestApp | undefined;

  beforeEach(async () => {
    database = await createTestDatabase('postgresql');
  });
  afterEach(async () => {
    await testApp?.close();
    testApp = undefined;
    await database.drop();
  });

  it('prisma migrate deploy and the service use the same schema', async () => {
    const schema = `tenant_${randomBytes(4).toString('hex')}`;
    const url = `${database.url}?schema=${schema}`;

    const deploy = runPrismaCli(['migrate', 'deploy'], url);
    expect(deploy.output).toMatch(/migrations have been successfully applied|All migrations have been/);
    expect(deploy.status).toBe(0);
    const migrated = await tablesBySchema(url);
    expect(Object.keys(migrated)).toEqual([schema]);
    expect(migrated[schema]).toEqual(expect.arrayContaining(['_prisma_migrations', 'links', 'idempotency_records']));
    expect(runPrismaCli(['migrate', 'status'], url).status).toBe(0);

    // Start-up finds nothing pending: it reads the migrations table the CLI wrote.
    testApp = await startTestApp({ MIGRATE_ON_START: 'false' }, { url, drop: () => Promise.resolve() });
    expect(testApp.config.database).toMatchObject({ kind: 'postgresql', schema });

    await createAndFollow(testApp, url, schema);
    expect(Object.keys(await tablesBySchema(url))).toEqual([schema]);
  });

  it('startup migrations and the service use the schema, whatever public holds', async () => {
    // A `links` table in public, as a database used without ?schema= before would have: neither
    // the migrations nor the service may read or write it.
    await query(database.url, `CREATE TABLE public.links (code text PRIMARY KEY, url text NOT NULL)`);
    await query(database.url, `INSERT INTO public.links VALUES ('inpublic', 'https://example.com/public')`);
    const schema = `tenant ${randomBytes(4).toString('hex')}`; // a space: quoted everywhere
    const url = `${database.url}?schema=${encodeURIComponent(schema)}`;

    testApp = await startTestApp({}, { url, drop: () => Promise.resolve() });

    const tables = await tablesBySchema(url);
    expect(tables.public).toEqual(['links']);
    expect(tables[schema]).toEqual(expect.arrayContaining(['_prisma_migrations', 'links', 'idempotency_records']));
    const code = await createAndFollow(testApp, url, schema);
    expect((await testApp.request('/inpublic')).status).toBe(404);
    expect(await query(url, 'SELECT code FROM public.links')).toEqual([{ code: 'inpublic' }]);
    expect(await query(url, `SELECT code FROM "${schema}".links`)).toEqual([{ code }]);

    // Every connection the service opens has the schema, alone, as its search_path.
    const pools = testApp.app.get<PostgresPools>(DATABASE_CONNECTIONS);
    const prismaClient = testApp.app.get(PrismaService);
    for (const searchPath of [
      (await pools.hot.pool.query<{ search_path: string }>('SHOW search_path')).rows[0].search_path,
      (await pools.main.pool.query<{ search_path: string }>('SHOW search_path')).rows[0].search_path,
      (await prismaClient.$queryRawUnsafe<{ search_path: string }[]>('SHOW search_path'))[0].search_path,
    ]) {
      expect(searchPath).toBe(`"${schema}"`);
    }
  });
});
