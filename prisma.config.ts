// Prisma CLI configuration. DATABASE_URL picks the schema and migrations of its database kind
// (prisma/sqlite or prisma/postgresql), and migrations run on the schema engine's WebAssembly
// build (prisma/engine) so the CLI never downloads a native engine.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'prisma/config';
import { readDatabaseUrl } from './prisma/engine/database-url.js';

const root = path.dirname(fileURLToPath(import.meta.url));
const url = process.env.DATABASE_URL || 'file:./data/shortlink.db';
// The reader the service and the engine use: a URL either side would refuse stops here first.
const { kind } = readDatabaseUrl(url);

// The CLI reads this variable when it spawns the engine; an explicit value (e.g. a native
// engine) still wins.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(root, 'prisma', 'engine', 'schema-engine.js');

export default defineConfig({
  schema: path.join(root, 'prisma', kind, 'schema.prisma'),
  migrations: { path: path.join(root, 'prisma', kind, 'migrations') },
  datasource: {
    url,
    shadowDatabaseUrl: process.env.SHADOW_DATABASE_URL || undefined,
  },
});
