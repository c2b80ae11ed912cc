import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The data model of a schema file: every block except `generator` and `datasource` (which
 * differ by design), without comments, one normalised line per field or attribute.
 */
function dataModel(kind: 'sqlite' | 'postgresql'): string[] {
  const source = readFileSync(join(ROOT, 'prisma', kind, 'schema.prisma'), 'utf8');
  const withoutComments = source.replace(/\/\/.*$/gm, '');
  const blocks = [...withoutComments.matchAll(/^(\w+)\s+(\w+)\s*\{([^}]*)\}/gm)];
  return blocks
    .filter(([, keyword]) => keyword !== 'generator' && keyword !== 'datasource')
    .flatMap(([, keyword, name, body]) => [
      `${keyword} ${name}`,
      ...body
        .split('\n')
        .map((line) => line.trim().replace(/\s+/g, ' '))
        .filter(Boolean)
        .map((line) => `  ${line}`),
    ]);
}

describe('prisma schemas', () => {
  it('describe the same models for SQLite and PostgreSQL', () => {
    const sqlite = dataModel('sqlite');
    expect(sqlite.filter((line) => line.startsWith('model '))).toEqual([
      'model Account',
      'model RecoveryCode',
      'model Passkey',
      'model SignInChallenge',
      'model ApiToken',
      'model Link',
      'model LinkTag',
      'model AccountTag',
      'model ClickBatch',
      'model LinkDailyClicks',
      'model LinkDailyReferrer',
      'model LinkMonthlyReferrer',
      'model LinkMonthlyLabel',
      'model LinkDailyLabel',
      'model Session',
      'model IdempotencyRecord',
      'model AccountDailyClicks',
      'model AccountDailyCountry',
      'model AccountDailyReferrer',
      'model AccountDailyLink',
      'model WebhookEndpoint',
      'model WebhookMessage',
      'model WebhookNewMessage',
      'model WebhookClickTally',
      'model BlockedHost',
      'model LinkChange',
      'model Report',
      'model AuditEvent',
      'model EmailToken',
      'model MailMessage',
      'model MailDigest',
    ]);
    // The one line by design on PostgreSQL alone: the search's trigram index (pg_trgm), which
    // SQLite has no equivalent of that Prisma Migrate accepts.
    const searchIndex =
      '  @@index([code(ops: raw("gin_trgm_ops")), url(ops: raw("gin_trgm_ops"))], type: Gin, map: "links_search_trgm_idx")';
    const postgresql = dataModel('postgresql');
    expect(postgresql).toContain(searchIndex);
    expect(postgresql.filter((line) => line !== searchIndex)).toEqual(sqlite);
  });

  it('each generate their own client and use their own provider', () => {
    for (const kind of ['sqlite', 'postgresql'] as const) {
      const source = readFileSync(join(ROOT, 'prisma', kind, 'schema.prisma'), 'utf8');
      expect(source).toMatch(new RegExp(`output\\s*=\\s*"\\.\\./\\.\\./src/generated/${kind}"`));
      expect(source).toMatch(new RegExp(`provider\\s*=\\s*"${kind}"`));
    }
  });
});
