// @ts-check
// Prisma's schema engine (migrations, db push, diff) run from its official WebAssembly build, so
// no native engine binary has to be downloaded. Used by the `schema-engine.js` executable that
// the Prisma CLI spawns, and in-process by the server to apply migrations at start-up.
//
// The wasm engine talks to the database through a Prisma driver adapter (better-sqlite3 or pg)
// instead of its own drivers. This file builds that adapter from a URL and works around the
// places where the wasm engine or the adapters fall short of what the native engine does;
// each workaround says why.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import * as glue from '@prisma/schema-engine-wasm/schema_engine_bg';
import { createPrivateFile } from './sqlite-files.js';

/** @typedef {import('./database-url.js').DatabaseTarget} DatabaseTarget */
/** @typedef {import('./database-url.js').SqliteDatabase} SqliteDatabase */
/** @typedef {import('./database-url.js').PostgresDatabase} PostgresDatabase */
/** @typedef {import('./database-url.js').PostgresConnection} PostgresConnection */
/** @typedef {import('@prisma/schema-engine-wasm').SchemaEngine} WasmSchemaEngine */
/** @typedef {import('@prisma/schema-engine-wasm').MigrationList} MigrationList */
/** @typedef {import('@prisma/schema-engine-wasm').DiffParams} DiffParams */
/** @typedef {import('@prisma/schema-engine-wasm').DiagnoseMigrationHistoryInput} DiagnoseMigrationHistoryInput */
/** @typedef {import('@prisma/schema-engine-wasm').DevDiagnosticInput} DevDiagnosticInput */
/** @typedef {import('@prisma/driver-adapter-utils').SqlDriverAdapter} SqlDriverAdapter */
/** @typedef {import('@prisma/driver-adapter-utils').SqlMigrationAwareDriverAdapterFactory} AdapterFactory */
/** @typedef {(line: string) => void} LogSink receives the engine's JSON log lines */

/**
 * The engine's methods that take one JSON input, by their JSON-RPC names (`version`, `free`…
 * excluded).
 * @typedef {Exclude<keyof WasmSchemaEngine, 'free' | 'version' | typeof Symbol.dispose>} EngineMethod
 */

/**
 * What a session works on: databases read by `readDatabaseUrl` (the same description the service
 * connects with), the schema files for commands that need them, and where the engine logs.
 * @typedef {object} SessionOptions
 * @property {DatabaseTarget} database
 * @property {DatabaseTarget} [shadowDatabase] SHADOW_DATABASE_URL, for `migrate dev`
 * @property {[string, string][]} [datamodels] schema files: path and content
 * @property {LogSink} [log]
 */

/**
 * Node's `WebAssembly` global, typed by the little used here: the project compiles without the
 * DOM library (which would type the whole service as browser code), and @types/node 20 does not
 * declare it.
 * @typedef {object} WasmApi
 * @property {(bytes: Uint8Array, imports: Record<string, Record<string, unknown>>) => Promise<{ instance: { exports: Record<string, unknown> } }>} instantiate
 * @property {new (...args: never[]) => Error} RuntimeError
 */
const wasmApi = /** @type {{ WebAssembly: WasmApi }} */ (/** @type {unknown} */ (globalThis)).WebAssembly;

/**
 * Whether an error is the engine's panic (a wasm trap) rather than a reported failure.
 * @param {unknown} error
 */
export function isEnginePanic(error) {
  return error instanceof wasmApi.RuntimeError;
}

/** An in-memory SQLite database, for engine work that needs no real database. */
const SCRATCH_DATABASE = /** @type {const} @satisfies {SqliteDatabase} */ ({
  kind: 'sqlite',
  url: 'file::memory:',
  file: ':memory:',
});

/** An error carrying a Prisma error code (`P1003`…), shown by the CLI like the native engine's. */
export class EngineError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.name = 'EngineError';
    /** @type {string} */
    this.code = code;
  }
}

// ---------------------------------------------------------------------------------------------
// Loading the wasm

/** @type {Promise<void> | undefined} */
let wasmReady;

/**
 * Instantiates the wasm once per process. The package's own `schema_engine.js` entry imports
 * the .wasm file as an ES module, which Node does not support, so we instantiate it ourselves
 * and hand it to the package's JS glue.
 */
function loadWasm() {
  wasmReady ??= (async () => {
    const require = createRequire(import.meta.url);
    // Prefer the wasm that ships inside the `prisma` CLI: it is built from exactly the engines
    // version the CLI expects. The npm package's wasm (same glue, same imports) is the fallback.
    const fromCli = path.join(path.dirname(require.resolve('prisma/package.json')), 'build', 'schema_engine_bg.wasm');
    const fromPackage = path.join(
      path.dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')),
      'schema_engine_bg.wasm',
    );
    const bytes = readFileSync(existsSync(fromCli) ? fromCli : fromPackage);
    // The glue's exports are the wasm's imports; its typings declare only the public API, not
    // the generated `__wbg_*` functions, hence a plain record.
    /** @type {Record<string, unknown>} */
    const imports = { ...glue };
    for (const name of Object.keys(imports)) {
      if (!name.startsWith('__wbg_setTimeout_')) continue;
      const setTimeoutImport = /** @type {(...args: unknown[]) => NodeJS.Timeout} */ (imports[name]);
      // The engine starts a 10 s timer per connection that it never clears; a referenced timer
      // would keep the server (or a test) alive 10 s after everything else is done.
      imports[name] = (/** @type {unknown[]} */ ...args) => setTimeoutImport(...args).unref();
    }
    const { instance } = await wasmApi.instantiate(bytes, { './schema_engine_bg.js': imports });
    glue.__wbg_set_wasm(instance.exports);
    /** @type {() => void} */ (instance.exports.__wbindgen_start)();
  })();
  return wasmReady;
}

// ---------------------------------------------------------------------------------------------
// Driver adapters

/** @typedef {{ PrismaBetterSqlite3: typeof import('@prisma/adapter-better-sqlite3').PrismaBetterSqlite3, Database: typeof import('better-sqlite3') }} SqliteDrivers */
/** @typedef {{ PrismaPg: typeof import('@prisma/adapter-pg').PrismaPg, pg: typeof import('pg').default }} PostgresDrivers */

/**
 * The drivers of one database kind, loaded the first time that kind is used: the service runs
 * its migrations here before it serves, and an imported module stays loaded for the life of the
 * process, so a service on SQLite never loads `pg` and its adapter, nor one on PostgreSQL
 * better-sqlite3's (docs/performance.md, "Memory").
 */
const drivers = {
  /** @type {Promise<SqliteDrivers> | undefined} */
  sqliteLoad: undefined,
  /** @type {Promise<PostgresDrivers> | undefined} */
  postgresLoad: undefined,
  sqlite() {
    return (this.sqliteLoad ??= Promise.all([import('@prisma/adapter-better-sqlite3'), import('better-sqlite3')]).then(
      ([adapter, driver]) => ({ PrismaBetterSqlite3: adapter.PrismaBetterSqlite3, Database: driver.default }),
    ));
  },
  postgres() {
    return (this.postgresLoad ??= Promise.all([import('@prisma/adapter-pg'), import('pg')]).then(
      ([adapter, driver]) => ({ PrismaPg: adapter.PrismaPg, pg: driver.default }),
    ));
  },
};

/**
 * Adapter factory for a database, remembering every connection it opens so `closeAll` can
 * release them: the engine never closes its own connections, and those hold the SQLite file lock
 * and the PostgreSQL migration advisory lock.
 * @param {{ database: DatabaseTarget, shadowDatabase?: DatabaseTarget }} options
 */
async function createAdapterFactory({ database, shadowDatabase }) {
  /** @type {Set<() => Promise<void>>} */
  const open = new Set();
  /** @param {SqlDriverAdapter} adapter */
  const track = (adapter) => {
    const dispose = adapter.dispose.bind(adapter);
    /** @type {Promise<void> | undefined} */
    let disposed;
    // Idempotent, because both the engine and closeAll may dispose the same connection.
    const once = () => {
      open.delete(once);
      return (disposed ??= dispose());
    };
    adapter.dispose = once;
    open.add(once);
    return adapter;
  };
  if (shadowDatabase && shadowDatabase.kind !== database.kind) {
    throw new EngineError('P1013', 'SHADOW_DATABASE_URL must be a database of the same kind as DATABASE_URL.');
  }
  /** @type {AdapterFactory} */
  const factory =
    database.kind === 'sqlite'
      ? sqliteAdapterFactory(
          database,
          /** @type {SqliteDatabase | undefined} */ (shadowDatabase),
          track,
          await drivers.sqlite(),
        )
      : postgresAdapterFactory(
          database,
          /** @type {PostgresDatabase | undefined} */ (shadowDatabase),
          track,
          await drivers.postgres(),
        );
  // The engine calls the factory's methods unbound and expects results wrapped the way
  // driver-adapter-utils does it for Prisma Client.
  const bound = bindMigrationAwareSqlAdapterFactory(factory);
  return {
    factory: bound,
    errorRegistry: bound.errorRegistry,
    closeAll: async () => {
      await Promise.allSettled([...open].map((dispose) => dispose()));
    },
  };
}

/**
 * @param {SqliteDatabase} database
 * @param {SqliteDatabase | undefined} shadowDatabase
 * @param {(adapter: SqlDriverAdapter) => SqlDriverAdapter} track
 * @param {SqliteDrivers} drivers
 * @returns {AdapterFactory}
 */
function sqliteAdapterFactory(database, shadowDatabase, track, { PrismaBetterSqlite3 }) {
  // The engine connects as soon as it is created, even for commands that never touch the
  // database (`migrate diff --from-empty --to-schema …`), and an exception there is never
  // reported. A database that does not exist is an empty one: stand in an in-memory database
  // rather than create files. Commands that write (migrate dev/deploy/reset, db push) have the
  // CLI create the database first (`cli create-database`), so they always find the file.
  const main = existsSync(database.file) ? database.file : ':memory:';
  const adapterFactory = new PrismaBetterSqlite3({ url: main }, { shadowDatabaseUrl: shadowDatabase?.file });
  /** @param {SqlDriverAdapter} adapter */
  const patch = (adapter) => {
    const executeRaw = adapter.executeRaw.bind(adapter);
    // The engine sends whole migration scripts through executeRaw, which better-sqlite3 refuses
    // when they hold more than one statement; executeScript runs them with exec().
    adapter.executeRaw = async (query) => {
      if (query.args.length > 0) return executeRaw(query);
      try {
        return await executeRaw(query);
      } catch (error) {
        if (
          !/more than one statement/.test(String(/** @type {Error} */ (error)?.message ?? error) + describeCause(error))
        )
          throw error;
        await adapter.executeScript(query.sql);
        return 0;
      }
    };
    return track(adapter);
  };
  return {
    provider: 'sqlite',
    adapterName: adapterFactory.adapterName,
    connect: async () => patch(await adapterFactory.connect()),
    connectToShadowDb: async () => {
      // An explicit shadow database starts empty every time, as with the native engine:
      // `migrate dev` connects to it more than once per command and replays the whole migration
      // history on each connection. (The default shadow database is in memory, empty anyway.)
      const shadowFile = shadowDatabase?.file ?? ':memory:';
      if (shadowFile !== ':memory:') {
        for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${shadowFile}${suffix}`, { force: true });
      }
      return patch(await adapterFactory.connectToShadowDb());
    },
  };
}

/** @param {unknown} error */
function describeCause(error) {
  try {
    return JSON.stringify(error);
  } catch {
    return '';
  }
}

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

/**
 * A pool whose results report PostgreSQL's internal one-byte `"char"` type as text: adapter-pg
 * cannot map it, and the engine's catalog queries read it (e.g. `pg_constraint.contype`); its
 * values are plain strings.
 * @param {import('pg').PoolConfig} config
 * @param {PostgresDrivers['pg']} pg
 */
function charAsTextPool(config, pg) {
  const pool = new pg.Pool(config);
  // pg.Pool#query's overloads (callback forms among them) have no single signature to wrap;
  // adapter-pg only uses the promise forms, whose result is a QueryResult.
  const query = /** @type {(...args: unknown[]) => Promise<import('pg').QueryResult>} */ (
    /** @type {unknown} */ (pool.query.bind(pool))
  );
  /** @param {unknown[]} args */
  const reportCharAsText = async (...args) => {
    const result = await query(...args);
    for (const field of result?.fields ?? []) {
      if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
    }
    return result;
  };
  pool.query = /** @type {import('pg').Pool['query']} */ (/** @type {unknown} */ (reportCharAsText));
  return pool;
}

/**
 * The connections carry the schema twice, as the service's do (src/database): as PrismaPg's
 * `schema` (the schema the engine creates and inspects) and as the connection's `search_path`
 * (where the migrations' unqualified `CREATE TABLE`s land); see database-url.js.
 * @param {PostgresDatabase} database
 * @param {PostgresDatabase | undefined} shadowDatabase
 * @param {(adapter: SqlDriverAdapter) => SqlDriverAdapter} track
 * @param {PostgresDrivers} drivers
 * @returns {AdapterFactory}
 */
function postgresAdapterFactory(database, shadowDatabase, track, { PrismaPg, pg }) {
  const { connection, schema } = database;
  /**
   * @param {PostgresConnection} settings
   * @param {string} schemaName
   */
  const connect = async (settings, schemaName) => {
    // One connection: the engine takes a session-level advisory lock while migrating and never
    // unlocks it, so every statement must run on the session that holds it, and closing that
    // one connection is what releases it. Idle connections are never recycled for the same
    // reason.
    const pool = charAsTextPool({ ...settings, max: 1, idleTimeoutMillis: 0 }, pg);
    const adapter = await new PrismaPg(pool, { schema: schemaName, disposeExternalPool: true }).connect();
    // adapter-pg splits scripts on ";", which breaks `$$` function bodies and string literals;
    // PostgreSQL runs a multi-statement script as is. A statement without parameters goes over
    // pg's simple query protocol, which takes several statements, and adapter-pg's executeRaw
    // reports its errors the way the engine expects.
    adapter.executeScript = async (script) => {
      await adapter.executeRaw({ sql: script, args: [], argTypes: [] });
    };
    return track(adapter);
  };
  return {
    provider: 'postgres',
    adapterName: '@prisma/adapter-pg',
    connect: () => connect(connection, schema),
    connectToShadowDb: async () => {
      if (shadowDatabase) {
        // An explicit shadow database starts empty every time, as with the native engine:
        // `migrate dev` connects to it more than once per command and replays the whole
        // migration history on each connection.
        const shadowSchema = quoteIdentifier(shadowDatabase.schema);
        await runAdminStatement(
          shadowDatabase.connection,
          `DROP SCHEMA IF EXISTS ${shadowSchema} CASCADE; CREATE SCHEMA ${shadowSchema}`,
        );
        return connect(shadowDatabase.connection, shadowDatabase.schema);
      }
      // adapter-pg's own shadow database is dropped before its pool is closed (which fails),
      // so create and drop a temporary one here, closing the pool first.
      const name = `prisma_migrate_shadow_db_${randomUUID()}`;
      await runAdminStatement(connection, `CREATE DATABASE "${name}"`);
      const adapter = await connect({ ...connection, database: name }, schema);
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = async () => {
        await dispose();
        await runAdminStatement(connection, `DROP DATABASE IF EXISTS "${name}"`);
      };
      return adapter;
    },
  };
}

/** @param {string} name */
function quoteIdentifier(name) {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Runs one statement on a short-lived connection of its own.
 * @param {import('pg').ClientConfig} config
 * @param {string} sql
 */
async function runAdminStatement(config, sql) {
  const { pg } = await drivers.postgres();
  const client = new pg.Client(config);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// Databases that do not exist yet (the wasm engine has no createDatabase)

/**
 * Checks that the database exists and accepts connections.
 * @param {DatabaseTarget} database
 * @returns {Promise<EngineError | null>} the error the native engine would report, or null
 */
export async function probeDatabase(database) {
  if (database.kind === 'sqlite') {
    const { file } = database;
    return existsSync(file)
      ? null
      : new EngineError('P1003', `Database \`${path.basename(file)}\` does not exist at \`${file}\``);
  }
  const { pg } = await drivers.postgres();
  const client = new pg.Client(database.connection);
  try {
    await client.connect();
    return null;
  } catch (error) {
    return postgresConnectError(/** @type {Error & { code?: string }} */ (error), database.connection);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * @param {Error & { code?: string }} error
 * @param {{ host: string, port: number, user?: string, database: string }} config
 */
function postgresConnectError(error, { host, port, user, database }) {
  switch (error.code) {
    case '3D000':
      return new EngineError(
        'P1003',
        `Database \`${database}\` does not exist on the database server at \`${host}:${port}\``,
      );
    case '28P01':
    case '28000':
      return new EngineError(
        'P1000',
        `Authentication failed against database server at \`${host}\`, the provided database credentials for \`${user ?? ''}\` are not valid.`,
      );
    default:
      return new EngineError('P1001', `Can't reach database server at \`${host}:${port}\`: ${error.message}`);
  }
}

/**
 * Creates the SQLite file (and its folder) or the PostgreSQL database. Creating a database that
 * another process has just created is not an error.
 * @param {DatabaseTarget} database
 * @returns {Promise<string>} the database name
 */
export async function createDatabase(database) {
  if (database.kind === 'sqlite') {
    const { file } = database;
    mkdirSync(path.dirname(file), { recursive: true });
    // Empty and the owner's alone (0600) before SQLite opens it: SQLite would make it 0644.
    createPrivateFile(file);
    const { Database } = await drivers.sqlite();
    new Database(file).close();
    return path.basename(file);
  }
  const config = database.connection;
  // Connect to a maintenance database: the target one does not exist yet.
  for (const maintenance of ['postgres', 'template1']) {
    try {
      await runAdminStatement(
        { ...config, database: maintenance },
        `CREATE DATABASE "${config.database.replaceAll('"', '""')}"`,
      );
      return config.database;
    } catch (error) {
      const code = /** @type {{ code?: string }} */ (error).code;
      // 42P04 duplicate_database; 23505 when two CREATE DATABASE race on the catalog index.
      if (code === '42P04' || code === '23505') return config.database;
      if (code === '3D000' && maintenance === 'postgres') continue;
      throw postgresConnectError(/** @type {Error & { code?: string }} */ (error), config);
    }
  }
  return config.database;
}

// ---------------------------------------------------------------------------------------------
// Migrations folder

/**
 * Reads a migrations folder into the engine's input shape, as the Prisma CLI does.
 * @param {string} baseDir absolute path of the migrations folder
 * @param {string} [shadowDbInitScript]
 * @returns {Promise<MigrationList>}
 */
export async function readMigrations(baseDir, shadowDbInitScript = '') {
  const lockfilePath = 'migration_lock.toml';
  const lockfile = await readFile(path.join(baseDir, lockfilePath), 'utf8').catch(() => null);
  const entries = await readdir(baseDir, { withFileTypes: true }).catch(() => []);
  const migrationDirectories = await Promise.all(
    entries
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort()
      .map(async (name) => ({
        path: name,
        migrationFile: {
          path: 'migration.sql',
          content: await readFile(path.join(baseDir, name, 'migration.sql'), 'utf8').then(
            (value) => /** @type {const} */ ({ tag: 'ok', value }),
            (error) => /** @type {const} */ ({ tag: 'error', value: String(error.message) }),
          ),
        },
      })),
  );
  return { baseDir, lockfile: { path: lockfilePath, content: lockfile }, shadowDbInitScript, migrationDirectories };
}

// ---------------------------------------------------------------------------------------------
// Engine sessions

const NO_FILTERS = { externalTables: [], externalEnums: [] };

/**
 * One engine plus the connections it opened. `request` takes the CLI's JSON-RPC method names
 * and parameters and smooths over the wasm engine's gaps.
 */
export class SchemaEngineSession {
  /** @type {Promise<WasmSchemaEngine> | undefined} */
  #engine;
  /** @type {(() => Promise<void>) | undefined} */
  #closeConnections;
  /** @type {import('@prisma/driver-adapter-utils').ErrorRegistry | undefined} */
  #errorRegistry;
  /** @type {'sqlite' | 'postgresql'} */
  kind;
  /** Whether devDiagnostic has run on the current engine (see `#ensureDiagnosed`). */
  #diagnosed = false;

  /** @param {SessionOptions} options */
  constructor(options) {
    /** @type {Required<Omit<SessionOptions, 'shadowDatabase'>> & Pick<SessionOptions, 'shadowDatabase'>} */
    this.options = { datamodels: [], log: () => undefined, ...options };
    this.kind = options.database.kind;
  }

  /** @param {SessionOptions} options */
  static async open(options) {
    await loadWasm();
    return new SchemaEngineSession(options);
  }

  /**
   * The engine is created on first use: creating it connects to the database, which some
   * requests do not need (see #diff).
   */
  #getEngine() {
    this.#engine ??= (async () => {
      await loadWasm();
      const { factory, closeAll, errorRegistry } = await createAdapterFactory(this.options);
      this.#closeConnections = closeAll;
      this.#errorRegistry = errorRegistry;
      this.#diagnosed = false;
      return glue.SchemaEngine.new(
        { datamodels: this.options.datamodels.length > 0 ? this.options.datamodels : undefined },
        this.options.log,
        factory,
      );
    })();
    return this.#engine;
  }

  /** Closes every connection the engine opened and frees the engine. */
  async close() {
    const engine = this.#engine;
    this.#engine = undefined;
    await this.#closeConnections?.();
    this.#closeConnections = undefined;
    (await engine?.catch(() => undefined))?.free();
  }

  /**
   * Runs one engine method by its JSON-RPC name. `params` is the CLI's JSON (or its in-process
   * equivalent), passed on as the engine's input: the engine checks it against its own types
   * and refuses what does not fit.
   * @param {string} method
   * @param {unknown} params
   * @returns {Promise<unknown>}
   */
  async request(method, params) {
    try {
      return await this.#dispatch(method, params);
    } catch (error) {
      throw this.originalError(error);
    } finally {
      // What devDiagnostic computed is stale once anything else ran (see #ensureDiagnosed).
      if (method !== 'devDiagnostic' && method !== 'evaluateDataLoss') this.#diagnosed = false;
    }
  }

  /**
   * Exceptions thrown inside the driver adapter reach us as "External error id#N"; the real
   * error (e.g. "directory does not exist") is in the adapter's error registry.
   * @param {unknown} error
   */
  originalError(error) {
    const id = /External error id#(\d+)/.exec(String(/** @type {Error} */ (error)?.message))?.[1];
    const original = id === undefined ? undefined : this.#errorRegistry?.consumeError(Number(id))?.error;
    return original ?? error;
  }

  /**
   * @param {string} method
   * @param {unknown} params
   */
  async #dispatch(method, params) {
    switch (method) {
      case 'getDatabaseVersion':
        return (await this.#getEngine()).version();
      case 'createDatabase':
        return { databaseName: await createDatabase(this.options.database) };
      case 'devDiagnostic':
        return this.#devDiagnostic(/** @type {DevDiagnosticInput} */ (params));
      case 'evaluateDataLoss':
      case 'createMigration':
        await this.#ensureDiagnosed(/** @type {DevDiagnosticInput} */ (params));
        return this.#call(method, params);
      case 'reset':
        return this.#reset(params);
      case 'diagnoseMigrationHistory':
        return this.#diagnoseMigrationHistory(/** @type {DiagnoseMigrationHistoryInput} */ (params));
      case 'diff':
        return this.#diff(/** @type {DiffParams} */ (params));
      case 'applyMigrations':
      case 'dbExecute':
      case 'debugPanic':
      case 'ensureConnectionValidity':
      case 'introspect':
      case 'introspectSql':
      case 'markMigrationApplied':
      case 'markMigrationRolledBack':
      case 'schemaPush':
        return this.#call(method, params);
      default:
        throw new EngineError('P1012', `The WebAssembly schema engine does not support "${method}".`);
    }
  }

  /**
   * @param {EngineMethod} method
   * @param {unknown} params
   */
  async #call(method, params) {
    const engine = await this.#getEngine();
    // Each method takes its own input type; see `request` for why the JSON is passed as is.
    const call = /** @type {(this: WasmSchemaEngine, params: unknown) => Promise<unknown>} */ (engine[method]);
    return call.call(engine, params);
  }

  /** @param {DevDiagnosticInput} params */
  async #devDiagnostic(params) {
    try {
      return await this.#diagnose(params);
    } catch (error) {
      // On SQLite the wasm engine treats a missing `_prisma_migrations` table as an error (P1014)
      // where the native engine sees an empty history. Let the engine create its table by
      // applying an empty migration list, then ask again.
      if (this.kind !== 'sqlite' || /** @type {{ code?: string }} */ (error).code !== 'P1014') throw error;
      await this.#call('applyMigrations', {
        migrationsList: { ...params.migrationsList, migrationDirectories: [] },
        filters: params.filters ?? NO_FILTERS,
      });
      return this.#diagnose(params);
    }
  }

  /** @param {DevDiagnosticInput} params */
  async #diagnose(params) {
    const result = await this.#call('devDiagnostic', {
      migrationsList: params.migrationsList,
      filters: params.filters ?? NO_FILTERS,
    });
    this.#diagnosed = true;
    return result;
  }

  /**
   * evaluateDataLoss and createMigration read state that only devDiagnostic computes in the wasm
   * engine, and `migrate dev` calls them after applyMigrations or reset, which leave it stale
   * ("SQLite shadow DB must be provided through an external factory").
   * @param {DevDiagnosticInput} params
   */
  async #ensureDiagnosed(params) {
    if (!this.#diagnosed) await this.#devDiagnostic(params);
  }

  /** @param {DiagnoseMigrationHistoryInput} params */
  async #diagnoseMigrationHistory(params) {
    try {
      return await this.#call('diagnoseMigrationHistory', params);
    } catch (error) {
      // The SQLite P1014 of #devDiagnostic again. For a read-only command, answer what the native
      // engine answers for a database without a migrations table: nothing applied yet.
      if (this.kind !== 'sqlite' || /** @type {{ code?: string }} */ (error).code !== 'P1014') throw error;
      const unapplied = params.migrationsList.migrationDirectories.map((migration) => migration.path);
      return {
        editedMigrationNames: [],
        failedMigrationNames: [],
        hasMigrationsTable: false,
        history: unapplied.length > 0 ? { diagnostic: 'databaseIsBehind', unappliedMigrationNames: unapplied } : null,
      };
    }
  }

  /**
   * A diff between schema files (`--from-empty --to-schema …`) needs no database, and the native
   * engine does not open one; the wasm engine does, and fails when the PostgreSQL database does
   * not exist yet. Such diffs run on a throwaway engine over an in-memory SQLite database: the
   * engine takes the SQL dialect from the schema's provider, not from the connection.
   * @param {DiffParams} params
   */
  async #diff(params) {
    const offline = [params.from, params.to].every(
      (target) => target.tag === 'empty' || target.tag === 'schemaDatamodel',
    );
    if (!offline) return this.#call('diff', params);
    const scratch = await SchemaEngineSession.open({ database: SCRATCH_DATABASE, log: this.options.log });
    try {
      return await scratch.#call('diff', params);
    } finally {
      await scratch.close();
    }
  }

  /** @param {unknown} params */
  async #reset(params) {
    if (this.kind === 'postgresql') return this.#call('reset', params);
    // The wasm engine's SQLite reset only deletes rows. Do what the native engine does: close
    // the connection, empty the file, and let the next request start on the blank database.
    await this.close();
    const { file } = /** @type {SqliteDatabase} */ (this.options.database);
    if (existsSync(file)) truncateSync(file);
    return {};
  }
}
