import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../app.factory.js';
import { loadConfig } from '../config/app-config.js';
import { buildOpenApiDocument, serializeOpenApiDocument } from './openapi.document.js';

/**
 * The text of `openapi.json` as the current code describes it. Boots the real application
 * (never listening; the database is a throwaway SQLite file that is never queried) so the
 * document comes from exactly the modules, pipes and decorators that serve requests.
 */
export async function generateOpenApiJson(): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), 'shortlink-openapi-'));
  try {
    const config = loadConfig({ DATABASE_URL: `file:${join(scratch, 'openapi.db')}`, LOG_LEVEL: 'silent' });
    const app = await createApp(config);
    try {
      return serializeOpenApiDocument(await buildOpenApiDocument(app));
    } finally {
      await app.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
