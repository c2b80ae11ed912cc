// What a DATABASE_URL points at. Plain JavaScript with no dependencies: prisma.config.ts, the
// schema-engine executable and the server all read URLs the same way through this file.
import path from 'node:path';

/** @typedef {'sqlite' | 'postgresql'} DatabaseKind */

/**
 * Thrown for a URL that is neither `file:` nor `postgres(ql)://`; `code` is Prisma's own code
 * for an invalid database string, so the CLI shows it like any engine error.
 */
export class UnsupportedDatabaseUrlError extends Error {
  code = 'P1013';

  /** @param {string} url */
  constructor(url) {
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? `"${url}"`;
    super(`DATABASE_URL must start with file: (SQLite) or postgres:// / postgresql:// (PostgreSQL); got ${scheme}`);
    this.name = 'UnsupportedDatabaseUrlError';
  }
}

/** Thrown for a `file:` path whose %-escapes do not decode (`file:./100%.db`): a literal % is `%25`. */
export class MalformedDatabaseUrlError extends Error {
  code = 'P1013';

  /** @param {string} path */
  constructor(path) {
    super(`DATABASE_URL has a malformed %-escape in its file path "${path}" (write a literal % as %25)`);
    this.name = 'MalformedDatabaseUrlError';
  }
}

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
 * Absolute path of a SQLite `file:` URL. Relative paths are taken against `baseDir`, which is
 * what the native engine does with its working directory (the folder of prisma.config.ts).
 * @param {string} url
 * @param {string} [baseDir]
 */
export function sqliteFilePath(url, baseDir = process.cwd()) {
  const encoded = url.slice('file:'.length).replace(/[?#].*$/, '');
  let file;
  try {
    file = decodeURIComponent(encoded);
  } catch {
    throw new MalformedDatabaseUrlError(encoded);
  }
  return path.resolve(baseDir, file);
}

/**
 * node-postgres settings for a PostgreSQL URL, spelled out field by field: given a
 * `connectionString`, pg lets it override `database`, so a copy of the config meant for another
 * database (a shadow database) would silently connect to the main one.
 * @param {string} url
 */
export function postgresConfig(url) {
  const parsed = new URL(url);
  const params = parsed.searchParams;
  const sslmode = params.get('sslmode');
  return {
    host: params.get('host') ?? (decodeURIComponent(parsed.hostname) || 'localhost'),
    port: parsed.port ? Number(parsed.port) : 5432,
    user: decodeURIComponent(parsed.username) || undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    database: decodeURIComponent(parsed.pathname.slice(1)) || 'postgres',
    ssl:
      sslmode === null || sslmode === 'disable'
        ? undefined
        : { rejectUnauthorized: sslmode === 'verify-full' || sslmode === 'verify-ca' },
    /** Prisma's `?schema=` parameter; not a pg setting. */
    schema: params.get('schema') ?? undefined,
  };
}
