import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import Database from 'better-sqlite3';
import { sqliteFileOf } from '../../prisma/engine/database-url.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';

/**
 * A read-only handle on the SQLite file for the API's frequent reads (listing and searching
 * links), with its prepared statements kept: through Prisma, interpreting the query and
 * converting its result cost several times the read itself. WAL mode (set by the app's Prisma
 * client) lets it read while the writers write; each read sees the latest commit. Opened on
 * first use, i.e. after start-up has created and migrated the file.
 */
@Injectable()
export class SqliteReader implements OnApplicationShutdown {
  private db?: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get databaseIsSqlite(): boolean {
    return this.config.databaseKind === 'sqlite';
  }

  /** The prepared statement for `sql`, rows as arrays of column values. */
  rows<Row extends unknown[]>(sql: string, params: unknown[]): Row[] {
    return this.statement(sql).raw(true).all(...params) as Row[];
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      this.db ??= new Database(sqliteFileOf(this.config.database), {
        readonly: true,
        fileMustExist: true,
        timeout: 5000,
      });
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  // After the HTTP server has closed: no read is in flight.
  onApplicationShutdown(): void {
    this.statements.clear();
    this.db?.close();
    this.db = undefined;
  }
}
