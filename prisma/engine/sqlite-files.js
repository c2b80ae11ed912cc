// @ts-check
// Who may read the SQLite database. It holds password hashes, token and session hashes and
// webhook signing secrets, so its files are the owner's alone (mode 0600), whatever the umask:
// SQLite itself creates a database 0644 (less the umask), and its WAL and shared-memory files with
// the database file's mode. Plain JavaScript for the same reason as database-url.js: the Prisma
// CLI's schema engine creates databases too, without a build step.
import { chmodSync, closeSync, fchmodSync, openSync, statSync } from 'node:fs';

/** The mode of the database, its WAL, shared-memory and journal files, and of every backup. */
export const PRIVATE_FILE_MODE = 0o600;

/** The files SQLite keeps beside a database while it is open (the WAL, its index, a rollback journal). */
const COMPANIONS = ['-wal', '-shm', '-journal'];

/**
 * Creates `file` empty with mode 0600 (set explicitly: the umask could only narrow it), unless it
 * exists: an empty file is an empty SQLite database, and the WAL and shared-memory files SQLite
 * makes beside it copy its mode. False when it existed already.
 * @param {string} file
 * @returns {boolean}
 */
export function createPrivateFile(file) {
  let fd;
  try {
    fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === 'EEXIST') return false;
    throw error;
  }
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * What restricting one file came to: its mode was changed (`was`), or it could not be (`error`,
 * e.g. another user's file).
 * @typedef {{ file: string, was: number } | { file: string, was: number, error: string }} Restriction
 */

/**
 * Takes the group's and others' permissions off a database and its companion files (WAL, shared
 * memory, journal) where they have any: a database created before files were made 0600, or
 * copied in with a wider mode. Missing files are skipped; a file whose mode cannot be changed is
 * reported, not thrown (the service still starts). What was changed, or could not be.
 * @param {string} file the database file
 * @returns {Restriction[]}
 */
export function restrictSqliteFiles(file) {
  /** @type {Restriction[]} */
  const changed = [];
  for (const path of [file, ...COMPANIONS.map((suffix) => `${file}${suffix}`)]) {
    let mode;
    try {
      mode = statSync(path).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) === 0) continue;
    try {
      chmodSync(path, mode & 0o700);
      changed.push({ file: path, was: mode });
    } catch (error) {
      changed.push({ file: path, was: mode, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return changed;
}

/**
 * One line about a restriction, for the start-up log.
 * @param {Restriction} restriction
 * @returns {string}
 */
export function describeRestriction(restriction) {
  const was = restriction.was.toString(8).padStart(4, '0');
  const now = (restriction.was & 0o700).toString(8).padStart(4, '0');
  if ('error' in restriction) {
    return `Could not restrict ${restriction.file} (mode ${was}, readable by others) to the owner: ${restriction.error}`;
  }
  return `Restricted ${restriction.file} to mode ${now} (it was ${was}): it holds password hashes and secrets`;
}
