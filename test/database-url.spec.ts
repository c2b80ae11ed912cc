// The one reader of DATABASE_URL (prisma/engine/database-url.js), used by the service, the
// migrator and prisma.config.ts alike.
import { join, resolve } from 'node:path';
import {
  databaseKind,
  MalformedDatabaseUrlError,
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
