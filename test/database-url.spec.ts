// The one reader of DATABASE_URL (prisma/engine/database-url.js), used by the service, the
// migrator and prisma.config.ts alike.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  databaseKind,
  DatabaseUrlError,
  MalformedDatabaseUrlError,
  readDatabaseUrl,
  sqliteFilePath,
  UnsupportedDatabaseUrlError,
} from '../prisma/engine/database-url.js';

describe('sqliteFilePath', () => {
  it.each([
    ['file:./data/shortlink.db', '/srv/app/data/shortlink.db'],
    ['file:data/shortlink.db', '/srv/app/data/shortlink.db'],
    ['file:./my db.db', '/srv/app/my db.db'],
    ['file:./my%20db.db', '/srv/app/my db.db'],
    ['file:./caf%C3%A9.db', '/srv/app/café.db'],
    ['file:./app.db?connection_limit=1&socket_timeout=10', '/srv/app/app.db'],
    ['file:./app.db#fragment', '/srv/app/app.db'],
    ['file:./app.db?mode=rwc#x', '/srv/app/app.db'],
    ['file:/var/lib/shortlink/app.db', '/var/lib/shortlink/app.db'],
    ['file:///var/lib/shortlink/app.db', '/var/lib/shortlink/app.db'],
    ['file:/var/lib/short%20link/app.db', '/var/lib/short link/app.db'],
    ['file:./100%25.db', '/srv/app/100%.db'],
  ])('%s → %s (relative to /srv/app)', (url, expected) => {
    expect(sqliteFilePath(url, '/srv/app')).toBe(expected);
  });

  it.each(['file:./100%.db', 'file:./%zz.db', 'file:./%E9.db'])('refuses %s: a malformed %%-escape', (url) => {
    expect(() => sqliteFilePath(url, '/srv/app')).toThrow(MalformedDatabaseUrlError);
    expect(() => sqliteFilePath(url, '/srv/app')).toThrow(/write a literal % as %25/);
  });

  it('takes relative paths against the working directory by default', () => {
    expect(sqliteFilePath('file:./x.db')).toBe(join(resolve('.'), 'x.db'));
  });
});

describe('databaseKind', () => {
  it.each([
    ['file:./x.db', 'sqlite'],
    ['postgres://u@h/db', 'postgresql'],
    ['postgresql://u@h:5432/db?schema=public', 'postgresql'],
  ])('%s is %s', (url, kind) => {
    expect(databaseKind(url)).toBe(kind);
  });

  it.each(['mysql://h/db', 'postgresql:/h/db', 'File:./x.db', 'sqlite:./x.db', ''])('refuses %j', (url) => {
    expect(() => databaseKind(url)).toThrow(UnsupportedDatabaseUrlError);
  });
});

describe('readDatabaseUrl', () => {
  it('describes a SQLite URL by its absolute file, options ignored', () => {
    expect(readDatabaseUrl('file:./data/x.db?connection_limit=1#f', '/srv/app')).toEqual({
      kind: 'sqlite',
      url: 'file:./data/x.db?connection_limit=1#f',
      file: '/srv/app/data/x.db',
    });
    expect(readDatabaseUrl('file:/var/lib/x.db', '/srv/app')).toMatchObject({ file: '/var/lib/x.db' });
    expect(readDatabaseUrl('file:x.db')).toMatchObject({ file: join(resolve('.'), 'x.db') });
  });

  it('spells out the PostgreSQL connection, with the public schema by default', () => {
    expect(readDatabaseUrl('postgresql://ann:p%40ss@db.example:6543/short%20link')).toEqual({
      kind: 'postgresql',
      url: 'postgresql://ann:p%40ss@db.example:6543/short%20link',
      schema: 'public',
      connection: {
        host: 'db.example',
        port: 6543,
        user: 'ann',
        password: 'p@ss',
        database: 'short link',
        ssl: undefined,
        connectionTimeoutMillis: 5000,
        options: '-c search_path="public"',
      },
    });
    expect(readDatabaseUrl('postgres://db')).toMatchObject({
      connection: { host: 'db', port: 5432, user: undefined, database: 'postgres' },
    });
  });

  it.each([
    ['tenant_a', '-c search_path="tenant_a"'],
    ['Mixed Case', '-c search_path="Mixed\\ Case"'],
    ['we"ird', '-c search_path="we""ird"'],
  ])('makes ?schema=%s the search_path of every connection: %s', (schema, options) => {
    const target = readDatabaseUrl(`postgresql://h/db?schema=${encodeURIComponent(schema)}`);
    expect(target).toMatchObject({ kind: 'postgresql', schema, connection: { options } });
  });

  it('reads the other honoured options', () => {
    const target = readDatabaseUrl(
      'postgresql://u@h/db?host=/var/run/postgresql&application_name=shortlink&connect_timeout=12&sslmode=require',
    );
    expect(target).toMatchObject({
      connection: {
        host: '/var/run/postgresql',
        application_name: 'shortlink',
        connectionTimeoutMillis: 12_000,
        ssl: { rejectUnauthorized: false },
      },
    });
  });

  it('gives sslmode its libpq meaning, reading certificates from files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'database-url-'));
    try {
      writeFileSync(join(dir, 'ca.pem'), 'CA');
      const ssl = (query: string) => {
        const target = readDatabaseUrl(`postgresql://h/db?${query}`, dir);
        return target.kind === 'postgresql' ? target.connection.ssl : undefined;
      };
      expect(ssl('sslmode=disable')).toBe(false);
      expect(ssl('sslmode=verify-full')).toEqual({ rejectUnauthorized: true });
      expect(ssl('sslmode=verify-full&sslrootcert=ca.pem')).toEqual({ rejectUnauthorized: true, ca: 'CA' });
      expect(ssl('sslmode=verify-ca&sslrootcert=ca.pem')).toMatchObject({ rejectUnauthorized: true, ca: 'CA' });
      expect(ssl('sslmode=verify-ca&sslrootcert=ca.pem')).toHaveProperty('checkServerIdentity');
      expect(ssl('sslmode=require&sslrootcert=ca.pem')).toMatchObject({ rejectUnauthorized: true, ca: 'CA' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['postgresql://h/db?connection_limit=5', /option \?connection_limit=, which is not supported/],
    ['postgresql://h/db?pgbouncer=true', /option \?pgbouncer=/],
    ['postgresql://h/db?schema=a&schema=b', /sets \?schema= more than once/],
    ['postgresql://h/db?schema=', /empty \?schema=/],
    ['postgresql://h/db?sslmode=prefer', /sslmode=prefer; use one of disable, require, verify-ca, verify-full/],
    ['postgresql://h/db?sslrootcert=ca.pem', /sslrootcert= without an sslmode/],
    ['postgresql://h/db?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem', /cannot be read/],
    ['postgresql://h/db?connect_timeout=soon', /whole number of seconds/],
    ['postgresql://u:p%zz@h/db', /malformed %-escape in its password/],
    ['postgresql://h:99999/db', /not a valid URL/],
    ['mysql://h/db', /must start with file:/],
  ])('refuses %s with a DatabaseUrlError', (url, message) => {
    expect(() => readDatabaseUrl(url)).toThrow(DatabaseUrlError);
    expect(() => readDatabaseUrl(url)).toThrow(message);
  });
});
