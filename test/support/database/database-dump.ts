import { PrismaService } from '../../../src/database/prisma.service.js';
import type { TestApp } from '../test-app.js';

/**
 * Every row of every table of the app's database, as one JSON string: for asserting that some
 * value (a raw token) is stored nowhere, whatever the column.
 */
export async function dumpDatabase(testApp: TestApp): Promise<string> {
  const prisma = testApp.app.get(PrismaService);
  const tables =
    testApp.config.databaseKind === 'sqlite'
      ? await prisma.$queryRawUnsafe<Array<{ name: string }>>(
          `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`,
        )
      : await prisma.$queryRawUnsafe<Array<{ name: string }>>(
          `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
        );
  const dump: Record<string, unknown[]> = {};
  for (const { name } of tables) {
    dump[name] = await prisma.$queryRawUnsafe<unknown[]>(`SELECT * FROM "${name.replaceAll('"', '""')}"`);
  }
  return JSON.stringify(dump, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
}
