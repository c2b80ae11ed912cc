import { Logger } from '@nestjs/common';
import type pg from 'pg';
import { byDatabaseKind } from '../database/database-connections.js';
import type { PostgresPools } from '../database/postgres-pools.js';
import { PrismaService } from '../database/prisma.service.js';
import type { SqliteConnections } from '../database/sqlite-connections.js';

/** A change that another process on the database made: the codes whose cache entries are stale. */
export interface LinkChangeMessage {
  origin: string;
  codes: string[];
}

/** What the store tells its subscriber. */
export interface LinkChangeSubscriber {
  /** A change some process made (its own included: the subscriber skips those). */
  changed(change: LinkChangeMessage): void;
  /** Whether changes can be heard from now on; after a `false`, changes may have been missed. */
  hearing(up: boolean): void;
}

/**
 * The database's own road for "this link changed" between processes (instances, the `shortlink`
 * command, the webhook worker), so that no change depends on Redis: PostgreSQL's LISTEN/NOTIFY,
 * or on SQLite a table of changes that each instance reads every `SQLITE_POLL_MS`.
 */
export abstract class LinkChangeStore {
  /** Tells every other process that `codes` changed; resolves once the change is sent. */
  abstract publish(origin: string, codes: string[]): Promise<void>;

  /** Starts hearing other processes' changes; resolves once the first state is known. */
  abstract subscribe(subscriber: LinkChangeSubscriber): Promise<void>;

  /** Stops hearing them (shutdown). */
  abstract close(): Promise<void>;
}

/** How often an instance on SQLite looks for new changes: well inside the second the contract allows. */
export const SQLITE_POLL_MS = 200;

/** Rows older than this are deleted: every instance has read them many times over. */
const SQLITE_KEEP_MS = 10 * 60_000;

/** How often one instance deletes old rows. */
const SQLITE_PRUNE_EVERY_MS = 60_000;

/** Codes per row or notification: a NOTIFY payload must stay under 8,000 bytes. */
const CODES_PER_MESSAGE = 200;

function inChunks(codes: string[]): string[][] {
  const chunks: string[][] = [];
  for (let start = 0; start < codes.length; start += CODES_PER_MESSAGE) {
    chunks.push(codes.slice(start, start + CODES_PER_MESSAGE));
  }
  return chunks;
}

/**
 * SQLite: a row per change in `link_changes`, written through Prisma; read on the service's
 * read-only handle by sequence number (its primary key, so each poll is one short index read).
 * One writer at a time means rows commit in sequence order: a reader that has seen row N has seen
 * every row before it.
 */
export class SqliteLinkChangeStore extends LinkChangeStore {
  private readonly logger = new Logger('LinkChanges');
  private timer?: NodeJS.Timeout;
  private lastSeq = 0;
  private lastPrune = 0;
  private failing = false;

  constructor(
    private readonly connections: SqliteConnections,
    private readonly prisma: PrismaService,
  ) {
    super();
  }

  async publish(origin: string, codes: string[]): Promise<void> {
    await this.prisma.linkChange.createMany({
      data: inChunks(codes).map((chunk) => ({ origin, codes: chunk.join(' ') })),
    });
  }

  subscribe(subscriber: LinkChangeSubscriber): Promise<void> {
    const newest = this.connections.reader.get<{ seq: number | null }>('SELECT max(seq) AS seq FROM link_changes');
    this.lastSeq = newest?.seq ?? 0;
    subscriber.hearing(true);
    this.timer = setInterval(() => this.poll(subscriber), SQLITE_POLL_MS).unref();
    return Promise.resolve();
  }

  close(): Promise<void> {
    clearInterval(this.timer);
    return Promise.resolve();
  }

  private poll(subscriber: LinkChangeSubscriber): void {
    try {
      const rows = this.connections.reader.all<{ seq: number; origin: string; codes: string }>(
        'SELECT seq, origin, codes FROM link_changes WHERE seq > ? ORDER BY seq',
        this.lastSeq,
      );
      for (const row of rows) {
        this.lastSeq = row.seq;
        subscriber.changed({ origin: row.origin, codes: row.codes.split(' ') });
      }
      if (this.failing) this.logger.log('Reading link changes again');
      this.failing = false;
    } catch (error) {
      // A locked or missing file: the next poll tries again, and no row is skipped meanwhile.
      if (!this.failing) this.logger.warn(`Could not read link changes: ${String(error)}`);
      this.failing = true;
    }
    if (Date.now() - this.lastPrune > SQLITE_PRUNE_EVERY_MS) {
      this.lastPrune = Date.now();
      this.prisma.linkChange
        .deleteMany({ where: { createdAt: { lt: new Date(Date.now() - SQLITE_KEEP_MS) } } })
        .catch((error: unknown) => this.logger.warn(`Could not delete old link changes: ${String(error)}`));
    }
  }
}

/** How long the listener waits before connecting again after losing its connection. */
const POSTGRES_RECONNECT_MS = 1000;

/**
 * PostgreSQL (`pg` only as a type here: a service on SQLite never loads it): NOTIFY on a channel named after the schema (services on two schemas of one
 * database do not hear each other), sent through the main pool; each instance LISTENs on one
 * connection of its own. Notifications arrive in commit order, and only to connections listening
 * at the time: the listener reconnects on its own, and says when it hears again.
 */
export class PostgresLinkChangeStore extends LinkChangeStore {
  private readonly logger = new Logger('LinkChanges');
  private readonly channel: string;
  private client?: pg.Client;
  private closed = false;
  private retry?: NodeJS.Timeout;
  private wasLost = false;

  constructor(private readonly pools: PostgresPools) {
    super();
    this.channel = `shortlink_link_changes:${pools.schema}`;
  }

  async publish(origin: string, codes: string[]): Promise<void> {
    for (const chunk of inChunks(codes)) {
      const payload: LinkChangeMessage = { origin, codes: chunk };
      await this.pools.main.query({ text: 'SELECT pg_notify($1, $2)', values: [this.channel, JSON.stringify(payload)] });
    }
  }

  async subscribe(subscriber: LinkChangeSubscriber): Promise<void> {
    await this.listen(subscriber);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => undefined);
  }

  private async listen(subscriber: LinkChangeSubscriber): Promise<void> {
    if (this.closed) return;
    const client = this.pools.newClient();
    this.client = client;
    let lost = false;
    const onLost = (reason: string): void => {
      if (lost || this.closed) return;
      lost = true;
      this.wasLost = true;
      this.logger.warn(`Not hearing link changes (${reason}); listening again in ${POSTGRES_RECONNECT_MS} ms`);
      subscriber.hearing(false);
      void client.end().catch(() => undefined);
      this.retry = setTimeout(() => void this.listen(subscriber), POSTGRES_RECONNECT_MS).unref();
    };
    client.on('error', (error) => onLost(error.message));
    client.on('end', () => onLost('connection ended'));
    client.on('notification', (notification) => {
      if (notification.channel !== this.channel || notification.payload === undefined) return;
      const message = parseMessage(notification.payload);
      if (message) subscriber.changed(message);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(this.channel)}`);
      if (this.wasLost) this.logger.log('Hearing link changes again; the redirect cache starts empty');
      this.wasLost = false;
      subscriber.hearing(true);
    } catch (error) {
      onLost(error instanceof Error ? error.message : String(error));
    }
  }
}

function parseMessage(raw: string): LinkChangeMessage | undefined {
  try {
    const value = JSON.parse(raw) as Partial<LinkChangeMessage>;
    const valid =
      typeof value.origin === 'string' &&
      Array.isArray(value.codes) &&
      value.codes.every((code) => typeof code === 'string');
    return valid ? (value as LinkChangeMessage) : undefined;
  } catch {
    return undefined;
  }
}

export const linkChangeStoreProvider = byDatabaseKind(LinkChangeStore, {
  inject: [PrismaService],
  sqlite: (connections, prisma: PrismaService) => new SqliteLinkChangeStore(connections, prisma),
  postgresql: (pools) => new PostgresLinkChangeStore(pools),
});
