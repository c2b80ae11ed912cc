// Run by test/sqlite-native-handles.spec.ts as `node --expose-gc sqlite-handles-probe.mjs DIR`.
//
// better-sqlite3 12 wrapped its database and statement objects in node::ObjectWrap, whose
// destructor under Node.js 24's headers removes an environment cleanup hook, and the process
// aborted ("RemoveEnvironmentCleanupHook … Assertion failed: (env) != nullptr") when the garbage
// collector or a thread's teardown freed such an object outside a JavaScript context. The service
// does exactly that: its SQLite writer runs on a worker thread, and a shutdown frees every handle.
// This probe frees many of them every way it can — collected by a forced GC on a worker, left open
// when a worker ends, left open when the process ends — and prints "done" if it got that far.
import { Worker, isMainThread, workerData } from 'node:worker_threads';
import { join } from 'node:path';
import Database from 'better-sqlite3';

const WORKERS = 4;
const DATABASES = 40;
const STATEMENTS = 25;

function churn(dir, tag) {
  const kept = [];
  for (let i = 0; i < DATABASES; i++) {
    const db = new Database(join(dir, `${tag}-${i % 4}.db`));
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT OR REPLACE INTO t (k, v) VALUES (?, ?)');
    for (let s = 0; s < STATEMENTS; s++) {
      insert.run(s, `${tag}-${i}-${s}`);
      db.prepare('SELECT v FROM t WHERE k = ?').get(s);
      for (const row of db.prepare('SELECT k FROM t').iterate()) void row;
    }
    if (i % 3 === 0) db.close();
    // One in five stays referenced until the thread ends; the rest become garbage now.
    if (i % 5 === 0) kept.push(db);
    if (i % 10 === 9) globalThis.gc();
  }
  globalThis.gc();
  return kept;
}

if (isMainThread) {
  const dir = process.argv[2];
  const kept = churn(dir, 'main');
  for (let round = 0; round < 2; round++) {
    await Promise.all(
      Array.from({ length: WORKERS }, (_, w) => {
        const worker = new Worker(new URL(import.meta.url), {
          // V8's flags, --expose-gc among them, are the process's: the worker has gc() too.
          workerData: { dir, tag: `worker-${round}-${w}` },
        });
        return new Promise((resolve, reject) => {
          worker.once('error', reject);
          worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited ${code}`))));
        });
      }),
    );
    globalThis.gc();
  }
  console.log(`done, ${kept.length} handles left open for the process's exit`);
} else {
  // Handles kept alive past the end of the worker: freed by the thread's teardown.
  globalThis.keptUntilTheThreadEnds = churn(workerData.dir, workerData.tag);
}
