/**
 * The database could not be made ready: unreachable, migrations pending with MIGRATE_ON_START
 * off, or a migration that failed. Its message is the one line printed at start-up.
 */
export class MigrationError extends Error {
  override name = 'MigrationError';
}
