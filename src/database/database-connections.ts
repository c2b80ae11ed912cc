import type { FactoryProvider, InjectionToken } from '@nestjs/common';
import type { DatabaseTarget } from '../../prisma/engine/database-url.js';
import type { PostgresPools } from './postgres-pools.js';
import type { SqliteConnections } from './sqlite-connections.js';

/**
 * How the service reaches its database, beside Prisma: the connections of the one database kind
 * in use, opened once by the DatabaseModule. Ordinary queries go through Prisma (PrismaService);
 * the paths where Prisma was measured too slow go through a store per database kind (e.g.
 * LinkStore) that holds these connections, chosen by `byDatabaseKind` when its module starts.
 */
export type DatabaseConnections = SqliteConnections | PostgresPools;

/** Injection token of the DatabaseConnections (a type union has no runtime token of its own). */
export const DATABASE_CONNECTIONS: InjectionToken<DatabaseConnections> = Symbol('DatabaseConnections');

/**
 * Opens the connections of the database in use. Only that kind's modules are loaded (here and in
 * createDatabaseClient): a service on SQLite never loads `pg`, its Prisma adapter or the
 * PostgreSQL client, nor one on PostgreSQL the SQLite side; each is heap held for the life of the
 * process (docs/performance.md, "Memory").
 */
export async function openDatabaseConnections(database: DatabaseTarget): Promise<DatabaseConnections> {
  if (database.kind === 'sqlite') {
    const { SqliteConnections } = await import('./sqlite-connections.js');
    return new SqliteConnections(database.file);
  }
  const { PostgresPools } = await import('./postgres-pools.js');
  return new PostgresPools(database);
}

/**
 * The provider of `token` for the database in use: `sqlite` or `postgresql` builds it from that
 * kind's connections and the providers listed in `inject`, once, when the module starts. A store
 * then holds exactly the connections it uses, and no method of it or of its callers asks which
 * database this is.
 */
export function byDatabaseKind<T>(
  token: InjectionToken<T>,
  build: {
    inject?: InjectionToken[];
    sqlite: (connections: SqliteConnections, ...injected: never[]) => T;
    postgresql: (pools: PostgresPools, ...injected: never[]) => T;
  },
): FactoryProvider<T> {
  return {
    provide: token,
    inject: [DATABASE_CONNECTIONS, ...(build.inject ?? [])],
    useFactory: (connections: DatabaseConnections, ...injected: unknown[]) =>
      connections.kind === 'sqlite'
        ? build.sqlite(connections, ...(injected as never[]))
        : build.postgresql(connections, ...(injected as never[])),
  };
}
