// Study (issue 32): the webhook worker's database side alone. Beside an instance with
// WEBHOOK_DELIVERY=off, claims its due messages and records them delivered as the worker process
// does (claims of up to 32 of an endpoint, back to back while they come full, a poll every 100
// ms, the records of 50 ms in one transaction), but sends nothing: its commits without its CPU.
// Usage: node bench/studies/webhook-commits-only.mjs <build root> <file:database>
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const [root, url] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(join(root, 'dist', 'src', path)).href);
const { SqliteConnections } = await load('database/sqlite-connections.js');
const { SqliteWebhookMessageStore } = await load('webhooks/delivery/sqlite-webhook-message-store.js');
const connections = new SqliteConnections(url.replace(/^file:/, ''));
const store = new SqliteWebhookMessageStore(connections);
let running = true;
process.on('SIGTERM', () => (running = false));
let pending = [];
let timer;
const flush = async () => {
  timer = undefined;
  const batch = pending;
  pending = [];
  if (batch.length) await store.record(batch);
};
console.log('Delivering the webhook messages (commits only)');
while (running) {
  const now = new Date();
  const claimed = await store.claim({
    now,
    limit: 128,
    perEndpoint: 32,
    busyEndpoints: [],
    claimedUntil: new Date(now.getTime() + 120_000),
  });
  const at = new Date();
  for (const m of claimed)
    pending.push({
      id: m.id,
      endpointId: m.endpointId,
      at,
      delivered: true,
      responseStatus: 204,
      nextAttemptAt: null,
      disableIfFailingSince: new Date(at.getTime() - 5 * 86_400_000),
    });
  if (pending.length) timer ??= setTimeout(() => void flush(), 50);
  if (claimed.length < 32) await sleep(100);
  else await sleep(5);
}
clearTimeout(timer);
await flush();
await connections.close();
