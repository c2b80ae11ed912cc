// Study (issue 32): the webhook worker's CPU alone. Beside an instance with WEBHOOK_DELIVERY=off,
// burns `perMessage` µs of CPU for every message the instance stores (counted on a read-only
// handle every 10 ms, so it commits nothing), in slices: the CPU of a worker and its receiver
// without their commits.
// Usage: node bench/studies/webhook-cpu-burner.mjs <file:database> <µs per message>
import Database from 'better-sqlite3';
import { setTimeout as sleep } from 'node:timers/promises';

const [url, perMessage] = process.argv.slice(2);
const db = new Database(url.replace(/^file:/, ''), { readonly: true, fileMustExist: true, timeout: 5000 });
const count = db.prepare('SELECT coalesce(max(rowid), 0) AS n FROM webhook_messages');
let running = true;
process.on('SIGTERM', () => (running = false));
let seen = count.get().n;
let owed = 0;
console.log('Delivering the webhook messages (CPU only)');
while (running) {
  const n = count.get().n;
  owed += (n - seen) * Number(perMessage);
  seen = n;
  // Burn in slices of up to 1 ms, a worker's pace: owed work within the next tick.
  const until = performance.now() + 20;
  while (owed > 0 && performance.now() < until) {
    const start = performance.now();
    while (performance.now() - start < Math.min(1, owed / 1000));
    owed -= (performance.now() - start) * 1000;
    await new Promise((r) => setImmediate(r));
  }
  await sleep(2);
}
db.close();
