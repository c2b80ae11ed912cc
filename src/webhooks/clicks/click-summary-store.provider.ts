import { byDatabaseKind } from '../../database/database-connections.js';
import { ClickSummaryStore } from './click-summary-store.js';
import { PostgresClickSummaryStore } from './postgres-click-summary-store.js';
import { SqliteClickSummaryStore } from './sqlite-click-summary-store.js';

/** The ClickSummaryStore of the database in use, chosen once when the webhooks module starts. */
export const clickSummaryStoreProvider = byDatabaseKind(ClickSummaryStore, {
  sqlite: (connections) => new SqliteClickSummaryStore(connections),
  postgresql: (pools) => new PostgresClickSummaryStore(pools.hot, pools.main),
});
