// @ts-check
// What a DATABASE_URL points at, read once into a typed description. Plain JavaScript (checked
// by tsc through the JSDoc types) with no runtime dependencies, because the Prisma CLI loads it
// without a build step: prisma.config.ts, the schema-engine executable, the startup migrations
// and the service's connections all read URLs through `readDatabaseUrl`, so `?schema=` and the
// other options below mean the same thing to the migrator and to the service.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** @typedef {'sqlite' | 'postgresql'} DatabaseKind */

/**
 * A SQLite database: one file. Query options and fragments of a `file:` URL are ignored (Prisma's
 * SQLite options configure its own driver, which the better-sqlite3 adapter replaces).
 * @typedef {object} SqliteDatabase
 * @property {'sqlite'} kind
 * @property {string} url the URL as given
 * @property {string} file absolute path of the file
 */

/**
 * A PostgreSQL database.
 * @typedef {object} PostgresDatabase
 * @property {'postgresql'} kind
 * @property {string} url the URL as given
 * @property {string} schema `?schema=` (default `public`): where the migrations create the
 *   tables, the schema Prisma's queries name, and the only schema on every connection's
 *   `search_path`
 * @property {PostgresConnection} connection the settings of every node-postgres client and pool
 */

/**
 * node-postgres settings, spelled out field by field: given a `connectionString`, pg lets it
 * override `database`, so a copy meant for another database (a shadow or maintenance database)
 * would silently connect to the main one; and pg would read options of its own from the query
 * string that the migrator never saw.
 * @typedef {object} PostgresConnection
 * @property {string} host a host name, or a Unix socket folder (`?host=/var/run/postgresql`)
 * @property {number} port
 * @property {string} [user]
 * @property {string} [password]
 * @property {string} database
 * @property {false | import('node:tls').ConnectionOptions} [ssl] unset: pg's default (PGSSLMODE)
 * @property {string} [application_name]
 * @property {number} connectionTimeoutMillis
 * @property {string} options startup options: `-c search_path=<schema>`, set when the
 *   connection opens, so no statement pays a round trip for it
 */

/** @typedef {SqliteDatabase | PostgresDatabase} DatabaseTarget */

/**
 * A DATABASE_URL that cannot be used. `reason` completes "DATABASE_URL …" (the service's config
 * error names the variable itself); `code` is Prisma's own code for an invalid database string,
 * so the CLI shows it like any engine error.
 */
export class DatabaseUrlError extends Error {
  code = 'P1013';

  /** @param {string} reason */
  constructor(reason) {
    super(`DATABASE_URL ${reason}`);
    this.name = 'DatabaseUrlError';
    this.reason = reason;
  }
}

/** Thrown for a URL that is neither `file:` nor `postgres(ql)://`. */
export class UnsupportedDatabaseUrlError extends DatabaseUrlError {
  /** @param {string} url */
  constructor(url) {
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? `"${url}"`;
    super(`must start with file: (SQLite) or postgres:// / postgresql:// (PostgreSQL); got ${scheme}`);
    this.name = 'UnsupportedDatabaseUrlError';
  }
}

/** Thrown for a `file:` path whose %-escapes do not decode (`file:./100%.db`): a literal % is `%25`. */
export class MalformedDatabaseUrlError extends DatabaseUrlError {
  constructor() {
    super('has a malformed %-escape in its file path (write a literal % as %25)');
    this.name = 'MalformedDatabaseUrlError';
  }
}

/**
 * The query options of a PostgreSQL URL that are honoured, each the same way by the migrator and
 * the service. Any other option is refused rather than ignored by one side and read by the
 * other: Prisma's pool options (`connection_limit`, `pool_timeout`, `pgbouncer`…) configure its
 * own driver, which the pg driver adapter replaces; the service sizes its pools itself.
 */
export const POSTGRES_URL_OPTIONS = /** @type {const} */ ([
  'schema',
  'host',
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
  'application_name',
  'connect_timeout',
]);

/** `sslmode` values with a node-postgres equivalent (libpq's `prefer` and `allow` fall back to plain text, pg cannot). */
const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'];

/** Prisma's (and libpq's) default when the URL sets no `connect_timeout`, in seconds. */
const DEFAULT_CONNECT_TIMEOUT_SECONDS = 5;

/**
 * @param {string} url
 * @returns {DatabaseKind}
 */
export function databaseKind(url) {
  if (url.startsWith('file:')) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgresql';
  throw new UnsupportedDatabaseUrlError(url);
}

/**
 * The one reader of DATABASE_URL. Relative paths (a SQLite file, a certificate) are taken against
 * `baseDir`, which is what the native engine does with its working directory (the folder of
 * prisma.config.ts).
 * @param {string} url
 * @param {string} [baseDir]
 * @returns {DatabaseTarget}
 * @throws {DatabaseUrlError}
 */
export function readDatabaseUrl(url, baseDir = process.cwd()) {
  return databaseKind(url) === 'sqlite'
    ? { kind: 'sqlite', url, file: sqliteFilePath(url, baseDir) }
    : readPostgresUrl(url, baseDir);
}

/**
 * Absolute path of a SQLite `file:` URL (see `readDatabaseUrl`).
 * @param {string} url
 * @param {string} [baseDir]
 */
export function sqliteFilePath(url, baseDir = process.cwd()) {
  const encoded = url.slice('file:'.length).replace(/[?#].*$/, '');
  let file;
  try {
    file = decodeURIComponent(encoded);
  } catch {
    throw new MalformedDatabaseUrlError();
  }
  return path.resolve(baseDir, file);
}

/**
 * The file of a SQLite target, for code that only runs on SQLite.
 * @param {DatabaseTarget} target
 */
export function sqliteFileOf(target) {
  if (target.kind !== 'sqlite') throw new Error('The configured database is not SQLite');
  return target.file;
}

/**
 * @param {string} url
 * @param {string} baseDir
 * @returns {PostgresDatabase}
 */
function readPostgresUrl(url, baseDir) {
  /** @type {URL} */
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new DatabaseUrlError(
      'is not a valid URL (special characters in the user name or password must be %-encoded)',
    );
  }
  const params = parsed.searchParams;
  for (const name of new Set(params.keys())) {
    if (!(/** @type {readonly string[]} */ (POSTGRES_URL_OPTIONS).includes(name))) {
      throw new DatabaseUrlError(
        `has the option ?${name}=, which is not supported; the options honoured are ${POSTGRES_URL_OPTIONS.join(', ')}`,
      );
    }
    if (params.getAll(name).length > 1) throw new DatabaseUrlError(`sets ?${name}= more than once`);
  }
  const decode = (/** @type {string} */ text, /** @type {string} */ part) => {
    try {
      return decodeURIComponent(text);
    } catch {
      throw new DatabaseUrlError(`has a malformed %-escape in its ${part}`);
    }
  };

  const schema = params.get('schema') ?? 'public';
  if (schema === '') throw new DatabaseUrlError('has an empty ?schema=');
  const timeout = params.get('connect_timeout') ?? String(DEFAULT_CONNECT_TIMEOUT_SECONDS);
  if (!/^\d+$/.test(timeout)) {
    throw new DatabaseUrlError(`has ?connect_timeout=${timeout}; it must be a whole number of seconds (0: no limit)`);
  }
  const applicationName = params.get('application_name');

  return {
    kind: 'postgresql',
    url,
    schema,
    connection: {
      host: params.get('host') || decode(parsed.hostname, 'host') || 'localhost',
      port: parsed.port ? Number(parsed.port) : 5432,
      user: decode(parsed.username, 'user name') || undefined,
      password: parsed.password ? decode(parsed.password, 'password') : undefined,
      database: decode(parsed.pathname.slice(1), 'database name') || 'postgres',
      ssl: sslOptions(params, baseDir),
      ...(applicationName === null ? {} : { application_name: applicationName }),
      connectionTimeoutMillis: Number(timeout) * 1000,
      options: `-c search_path=${startupOptionValue(quoteIdentifier(schema))}`,
    },
  };
}

/**
 * libpq's meaning of `sslmode` (which is Prisma's): `require` encrypts without checking the
 * certificate (unless `sslrootcert` is given: then it is `verify-ca`), `verify-ca` checks that a
 * trusted authority signed it, `verify-full` also checks the host name.
 * @param {URLSearchParams} params
 * @param {string} baseDir
 * @returns {PostgresConnection['ssl']}
 */
function sslOptions(params, baseDir) {
  const mode = params.get('sslmode');
  const files = /** @type {const} */ ([
    ['sslrootcert', 'ca'],
    ['sslcert', 'cert'],
    ['sslkey', 'key'],
  ]);
  if (mode === null || mode === 'disable') {
    const stray = files.find(([option]) => params.has(option));
    if (stray) throw new DatabaseUrlError(`has ?${stray[0]}= without an sslmode that uses TLS`);
    return mode === null ? undefined : false;
  }
  if (!SSL_MODES.includes(mode)) {
    throw new DatabaseUrlError(`has ?sslmode=${mode}; use one of ${SSL_MODES.join(', ')}`);
  }
  /** @type {import('node:tls').ConnectionOptions} */
  const ssl = {};
  for (const [option, field] of files) {
    const file = params.get(option);
    if (file === null) continue;
    try {
      ssl[field] = readFileSync(path.resolve(baseDir, file), 'utf8');
    } catch (error) {
      throw new DatabaseUrlError(
        `has ?${option}=${file}, which cannot be read: ${/** @type {Error} */ (error).message}`,
      );
    }
  }
  const verifyCa = mode === 'verify-ca' || (mode === 'require' && ssl.ca !== undefined);
  ssl.rejectUnauthorized = mode !== 'require' || verifyCa;
  // verify-ca trusts any certificate the authority signed, whatever host it names.
  if (verifyCa) ssl.checkServerIdentity = () => undefined;
  return ssl;
}

/** @param {string} name */
function quoteIdentifier(name) {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * PostgreSQL splits the startup `options` on white space, with a backslash escaping the next
 * character.
 * @param {string} value
 */
function startupOptionValue(value) {
  return value.replace(/[\\\s]/g, (character) => `\\${character}`);
}
