// The database's change feed when its road breaks, on databases of this spec's own: PostgreSQL's
// LISTEN connection killed under a serving instance; SQLite's table of changes briefly unreadable.
// The real store, feed and cache of two instances; the only addition is a record of what the
// store tells its subscriber.
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { loadConfig } from '../config/app-config.js';
import { openDatabaseConnections } from '../database/database-connections.js';
import type { PostgresPools } from '../database/postgres-pools.js';
import { createDatabaseClient, type DatabaseClient } from '../database/prisma-client.factory.js';
import type { SqliteConnections } from '../database/sqlite-connections.js';
import { LinkCache } from '../links/link-cache.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../test/support/database/migrated-database.js';
import { until } from '../../test/support/eventually.js';
import { LinkChangeFeed } from './link-change-feed.js';
import {
  PostgresLinkChangeStore,
  SqliteLinkChangeStore,
  type LinkChangeStore,
  type LinkChangeSubscriber,
} from './link-change-store.js';

/** The store's retry delay (POSTGRES_RECONNECT_MS), plus what a reconnection takes on a loaded machine. */
const LISTENING_AGAIN_WITHIN_MS = 1000 + 1000;

/** The contract: a change reaches every instance within a second. */
const CHANGE_VISIBLE_WITHIN_MS = 1000;

interface Heard {
  up: boolean;
  at: number;
}

/** A subscriber passed through, with a record of every `hearing` told to it (and when). */
function recorded(heard: Heard[], subscriber: LinkChangeSubscriber): LinkChangeSubscriber {
  return {
    changed: (change) => subscriber.changed(change),
    hearing: (up) => {
      heard.push({ up, at: Date.now() });
      subscriber.hearing(up);
    },
  };
}

/** The store as it is, recording what it tells its subscriber. */
class RecordedPostgresStore extends PostgresLinkChangeStore {
  readonly heard: Heard[] = [];

  override subscribe(subscriber: LinkChangeSubscriber): Promise<void> {
    return super.subscribe(recorded(this.heard, subscriber));
  }
}

/** The store as it is, recording what it tells its subscriber. */
class RecordedSqliteStore extends SqliteLinkChangeStore {
  readonly heard: Heard[] = [];

  override subscribe(subscriber: LinkChangeSubscriber): Promise<void> {
    return super.subscribe(recorded(this.heard, subscriber));
  }
}

/** One instance's cache and feed over a store, as ScaleOutModule wires them. */
function instance(store: LinkChangeStore) {
  const cache = new LinkCache(loadConfig({}));
  const feed = new LinkChangeFeed(cache, store);
  feed.onModuleInit();
  return { cache, feed, store };
}

function cache(side: { cache: LinkCache }, code: string): void {
  side.cache.setIfUnchanged(code, `https://${code}.example/`, side.cache.generation());
}

/** Resolves with how long it took, in ms; fails after `timeoutMs`. */
async function timeUntil(condition: () => boolean, timeoutMs: number): Promise<number> {
  const started = Date.now();
  await until(condition, timeoutMs);
  return Date.now() - started;
}

describe('PostgresLinkChangeStore when its listening connection is lost', () => {
  let database: MigratedDatabase<PostgresPools>;
  let otherPools: PostgresPools;
  let a: ReturnType<typeof instance>;
  let b: ReturnType<typeof instance> & { store: RecordedPostgresStore };

  /** The backends LISTENing on this spec's database (only b's: a only publishes). */
  async function listeningBackends(): Promise<number[]> {
    const { rows } = await otherPools.main.query<{ pid: number }>({
      text: `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
    });
    return rows.map((row) => row.pid);
  }

  beforeAll(async () => {
    database = await openMigratedDatabase('postgresql');
    // The other instance's connections, as another process on the database has.
    otherPools = (await openDatabaseConnections(database.target)) as PostgresPools;
    a = instance(new PostgresLinkChangeStore(otherPools));
    const store = new RecordedPostgresStore(database.connections);
    b = { ...instance(store), store };
    await b.feed.listen();
  });

  afterAll(async () => {
    await b?.feed.onApplicationShutdown();
    await otherPools?.close();
    await database?.drop();
  });

  it('hears another instance’s change within a second', async () => {
    expect(b.store.heard.map((event) => event.up)).toEqual([true]);
    expect(await listeningBackends()).toHaveLength(1);
    cache(b, 'before');
    expect(b.cache.get('before')).toBe('https://before.example/');

    await a.cache.invalidate('before');

    expect(await timeUntil(() => b.cache.get('before') === undefined, CHANGE_VISIBLE_WITHIN_MS)).toBeLessThanOrEqual(
      CHANGE_VISIBLE_WITHIN_MS,
    );
  });

  it('says it stopped hearing, listens again by itself, starts the cache empty and hears changes again', async () => {
    cache(b, 'kept');
    const [listener] = await listeningBackends();
    const heardBefore = b.store.heard.length;

    const { rows } = await otherPools.main.query<{ killed: boolean }>({
      text: 'SELECT pg_terminate_backend($1) AS killed',
      values: [listener],
    });
    expect(rows).toEqual([{ killed: true }]);

    // (a) The subscriber is told that it stopped hearing.
    await until(() => b.store.heard.length > heardBefore, 5000);
    const lost = b.store.heard[heardBefore];
    expect(lost.up).toBe(false);
    // Meanwhile the cache stays in use: cached redirects keep answering while the database is away.
    expect(b.cache.get('kept')).toBe('https://kept.example/');

    // (b) It listens again by itself, on a new connection, within the retry delay.
    await until(() => b.store.heard.length > heardBefore + 1, 10_000);
    const regained = b.store.heard[heardBefore + 1];
    expect(regained.up).toBe(true);
    expect(regained.at - lost.at).toBeLessThanOrEqual(LISTENING_AGAIN_WITHIN_MS);
    const listenersNow = await listeningBackends();
    expect(listenersNow).toHaveLength(1);
    expect(listenersNow).not.toContain(listener);

    // (c) On hearing again the cache starts empty: a change may have been missed meanwhile.
    expect(b.cache.get('kept')).toBeUndefined();

    // (d) A change published after the reconnection reaches it within a second.
    cache(b, 'after');
    expect(b.cache.get('after')).toBe('https://after.example/');
    await a.cache.invalidate('after');
    expect(await timeUntil(() => b.cache.get('after') === undefined, CHANGE_VISIBLE_WITHIN_MS)).toBeLessThanOrEqual(
      CHANGE_VISIBLE_WITHIN_MS,
    );
    // And nothing more was said: one loss, one recovery.
    expect(b.store.heard.slice(heardBefore).map((event) => event.up)).toEqual([false, true]);
  });
});

describe('SqliteLinkChangeStore when the table of changes cannot be read for a while', () => {
  let database: MigratedDatabase<SqliteConnections>;
  let otherConnections: SqliteConnections;
  let otherPrisma: DatabaseClient;
  let a: ReturnType<typeof instance>;
  let b: ReturnType<typeof instance> & { store: RecordedSqliteStore };
  const warnings = jest.spyOn(Logger.prototype, 'warn');
  const logs = jest.spyOn(Logger.prototype, 'log');
  const said = (spy: typeof warnings, text: string) =>
    spy.mock.calls.some(([message]) => String(message).includes(text));

  beforeAll(async () => {
    database = await openMigratedDatabase('sqlite');
    // The other instance's connections, as another process on the file has.
    otherConnections = (await openDatabaseConnections(database.target)) as SqliteConnections;
    otherPrisma = await createDatabaseClient(otherConnections);
    a = instance(new SqliteLinkChangeStore(otherConnections, otherPrisma));
    const store = new RecordedSqliteStore(database.connections, database.prisma);
    b = { ...instance(store), store };
    await b.feed.listen();
  });

  afterAll(async () => {
    await b?.feed.onApplicationShutdown();
    await otherPrisma?.$disconnect();
    await otherConnections?.close();
    await database?.drop();
    warnings.mockRestore();
    logs.mockRestore();
  });

  it('hears another instance’s change within a second', async () => {
    expect(b.store.heard.map((event) => event.up)).toEqual([true]);
    cache(b, 'before');

    await a.cache.invalidate('before');

    expect(await timeUntil(() => b.cache.get('before') === undefined, CHANGE_VISIBLE_WITHIN_MS)).toBeLessThanOrEqual(
      CHANGE_VISIBLE_WITHIN_MS,
    );
  });

  it('misses no change committed while it could not read, and keeps its cache', async () => {
    cache(b, 'kept');
    cache(b, 'during');

    // The table gone from under the reader, and a change committed meanwhile (what a poll that
    // fails must not skip).
    await otherPrisma.$executeRawUnsafe('ALTER TABLE link_changes RENAME TO link_changes_away');
    await otherPrisma.$executeRawUnsafe(
      `INSERT INTO link_changes_away (origin, codes, created_at) VALUES ('another process', 'during', ${Date.now()})`,
    );
    await until(() => said(warnings, 'Could not read link changes'), 5000);
    expect(b.cache.get('during')).toBe('https://during.example/');

    await otherPrisma.$executeRawUnsafe('ALTER TABLE link_changes_away RENAME TO link_changes');

    // The change committed while it could not read arrives within a second of the table's return.
    expect(await timeUntil(() => b.cache.get('during') === undefined, CHANGE_VISIBLE_WITHIN_MS)).toBeLessThanOrEqual(
      CHANGE_VISIBLE_WITHIN_MS,
    );
    expect(said(logs, 'Reading link changes again')).toBe(true);
    // Nothing was missed, so nothing is said and the cache is not emptied.
    expect(b.store.heard.map((event) => event.up)).toEqual([true]);
    expect(b.cache.get('kept')).toBe('https://kept.example/');

    // And later changes go on arriving.
    await a.cache.invalidate('kept');
    expect(await timeUntil(() => b.cache.get('kept') === undefined, CHANGE_VISIBLE_WITHIN_MS)).toBeLessThanOrEqual(
      CHANGE_VISIBLE_WITHIN_MS,
    );
  });
});
