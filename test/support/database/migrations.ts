import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The names of the committed migrations of one database kind, in the order they apply. */
export function committedMigrations(kind: 'sqlite' | 'postgresql'): string[] {
  return readdirSync(join(ROOT, 'prisma', kind, 'migrations'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}
