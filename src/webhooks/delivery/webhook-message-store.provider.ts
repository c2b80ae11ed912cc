import { byDatabaseKind } from '../../database/database-connections.js';
import { PostgresWebhookMessageStore } from './postgres-webhook-message-store.js';
import { SqliteWebhookMessageStore } from './sqlite-webhook-message-store.js';
import { WebhookMessageStore } from './webhook-message-store.js';

/** The WebhookMessageStore of the database in use, chosen once when the webhooks module starts. */
export const webhookMessageStoreProvider = byDatabaseKind(WebhookMessageStore, {
  sqlite: (connections) => new SqliteWebhookMessageStore(connections),
  postgresql: (pools) => new PostgresWebhookMessageStore(pools.main),
});
