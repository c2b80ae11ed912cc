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

/**
 * The tables the committed migrations make, sorted by name (without `_prisma_migrations`): the
 * models' tables, and on SQLite its AUTOINCREMENT bookkeeping (`sqlite_sequence`, for
 * click_batches.id).
 */
export function migratedTables(kind: 'sqlite' | 'postgresql'): string[] {
  return [
    'account_daily_clicks',
    'account_daily_countries',
    'account_daily_links',
    'account_daily_referrers',
    'account_tags',
    'accounts',
    'api_tokens',
    'audit_events',
    'blocked_hosts',
    'click_batches',
    'email_tokens',
    'idempotency_records',
    'link_changes',
    'link_daily_clicks',
    'link_daily_labels',
    'link_daily_referrers',
    'link_monthly_labels',
    'link_monthly_referrers',
    'link_tags',
    'links',
    'mail_digests',
    'mail_messages',
    'passkeys',
    'recovery_codes',
    'reports',
    'sessions',
    'sign_in_challenges',
    ...(kind === 'sqlite' ? ['sqlite_sequence'] : []),
    'webhook_click_tallies',
    'webhook_endpoints',
    'webhook_messages',
    'webhook_new_messages',
  ];
}
