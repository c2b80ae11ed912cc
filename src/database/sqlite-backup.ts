import { existsSync, linkSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { createPrivateFile } from '../../prisma/engine/sqlite-files.js';

export class BackupError extends Error {
  override name = 'BackupError';
}

export interface BackupResult {
  file: string;
  bytes: number;
  links: number;
}

/** After the first step, copy every remaining page in one step: one consistent read. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the SQLite database at `source` to `destination` while the service keeps serving, with
 * SQLite's online backup (better-sqlite3's `backup()`): the copy is one consistent snapshot, the
 * click log included, and holds every write committed before the backup began. A write that
 * lands between two steps makes SQLite start over, so after the first step the rest is copied in
 * one step (a read transaction, which in WAL mode never blocks the service's writes).
 *
 * The copy is the owner's alone (mode 0600, whatever the umask), as the database is. It is made
 * beside the destination under a temporary name, checked with
 * `PRAGMA integrity_check`, then linked into place, which fails if the destination exists: an
 * existing file is never overwritten, and a half-written copy never carries the destination's
 * name.
 */
export async function backupSqlite(source: string, destination: string): Promise<BackupResult> {
  const target = resolve(destination);
  if (existsSync(target)) throw new BackupError(`${destination} already exists; choose a new file name`);
  if (!existsSync(dirname(target))) throw new BackupError(`The folder of ${destination} does not exist`);
  if (!existsSync(source)) throw new BackupError(`No database at ${source}`);
  const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.partial`);
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    // The copy holds what the database holds (password hashes, secrets): made 0600 before SQLite
    // writes a page to it (SQLite would create it 0644), and kept so when linked into place.
    createPrivateFile(temporary);
    db.pragma('busy_timeout = 10000');
    await db.backup(temporary, { progress: () => ALL_PAGES });
  } catch (error) {
    removeQuietly(temporary);
    throw new BackupError(`Backup failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    db.close();
  }
  try {
    const copy = new Database(temporary, { readonly: true, fileMustExist: true });
    let links: number;
    try {
      const check = copy.pragma('integrity_check', { simple: true });
      if (check !== 'ok') throw new BackupError(`The copy failed PRAGMA integrity_check: ${String(check)}`);
      links = (copy.prepare('SELECT count(*) AS n FROM links').get() as { n: number }).n;
    } finally {
      copy.close();
    }
    try {
      linkSync(temporary, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new BackupError(`${destination} already exists; choose a new file name`);
      }
      throw error;
    }
    return { file: target, bytes: statSync(target).size, links };
  } finally {
    removeQuietly(temporary);
  }
}

function removeQuietly(file: string): void {
  for (const path of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    try {
      unlinkSync(path);
    } catch {
      // Not there: nothing to clean up.
    }
  }
}
