// The click fold: a task of the SQLite background writer (it runs on the writer's thread and
// connection, see database/sqlite-background-writer.worker.ts), run by SqliteClickSink.
import type Database from 'better-sqlite3';
import { taskDuty, type TaskPacer } from '../database/task-pacing.js';
import { defineWriterTask, type TaskContext } from '../database/sqlite-writer-protocol.js';
import { splitLabelKey } from './click-tally.js';
import { mergeBatches, packLoggedTexts, type PackedBatch } from './packed-tally.js';

/** The task's arguments. */
export interface FoldArgs {
  /** How long the fold may take (0: as fast as it can, at shutdown). */
  spreadMs: number;
  /** Characters of logged JSON per part (FOLD_PART_CHARS unless a spec asks for more parts). */
  partChars?: number;
}

/**
 * A fold works through the log's codes in parts of about this many characters of logged JSON
 * (one part below it): the tallies of one part's codes are held at a time. SQLite picks each
 * part's codes out of every batch, so every part parses the whole log again (in C). An unpaced
 * fold of 190,000 logged counts over 100,000 links on its own cost ~5 % more CPU in parts of 2 M
 * characters than of 4 M, and ~35 % more in parts of 1 M; in the benchmark, 2 M instead of 4 M
 * took 4-9 MiB off the peak of every row the fold ran beside (docs/performance.md, "Memory").
 */
export const FOLD_PART_CHARS = 2_000_000;

/**
 * The entries of a batch whose codes decide where the fold's parts begin: one in this many (a
 * log of 200,000 counts: 12,500 codes held while the bounds are found).
 */
const SAMPLE_EVERY = 16;
/** Rows of `links` updated per transaction of a fold: the write lock is held this long at most. */
const FOLD_ROWS_PER_TRANSACTION = 2000;
/** Codes looked up per read transaction of a fold (one file lock each, rather than one per code). */
const FOLD_LOOKUPS_PER_TRANSACTION = 2000;
/** A fold's rows at most, for tableOrder's fast path: 2^21 positions fit below the rowid. */
const POSITIONS = 2 ** 21;

/** A logged batch's counts of one part's codes. */
interface PartBatch {
  /** `click_batches.id`. */
  id: number;
  loggedAt: string;
  counts: PackedBatch;
}

type LinkRow = [code: string, createdAt: string, throughBatch: number, accountId: string | null];

/**
 * What the last fold cost per character of logged counts (ms): the next fold's expected work,
 * from which its pace follows (see foldDuty). Lives as long as the writer's thread.
 */
let foldMsPerLoggedChar: number | undefined;

/**
 * Adds every click batch logged so far (`click_batches`) to `links.clicks` and the links' daily
 * rows, then deletes those batches; resolves with the id of the last batch added (0: the log was
 * empty).
 *
 * Why in bulk: each click batch touches one row per distinct code visited, and over many links
 * each such row sits on a page of its own, so writing each batch straight into `links` costs a
 * page write (and its WAL checkpoint) per click. Added up over many batches, every page is
 * written once per part of a fold (below), however many of its links were visited.
 *
 * - In parts (a log over FOLD_PART_CHARS): each part is a range of codes, read from every batch
 *   and written before the next part is read, so the fold holds one part's tallies at a time (and
 *   its garbage is collected before the next part, see TaskContext.collectGarbage). In
 *   code ranges, the pages keyed by code (the code index, the daily rows) are each written by one
 *   part only; the links' own pages (in rowid order) once per part. The batches are deleted
 *   only once every part is done.
 * - The rows are found first through the code index, without the write lock, and updated in
 *   rowid order (the table's order: a page is read and written once, for all its rows) in
 *   transactions of FOLD_ROWS_PER_TRANSACTION rows; link inserts and new batches are handled
 *   between them. Visited in random order, the rows cost a read from the OS per row.
 * - Paced (database/task-pacing.ts): the work runs in short slices spread over about `spreadMs`, at no
 *   more than half a core, so that the event loop never competes with a burst of it.
 * - Exact across crashes and retries: a row records the last batch it includes
 *   (`clicks_through_batch`), and gets only the batches after that one; its daily rows are
 *   written in the same transaction. A fold cut off halfway leaves every link either fully
 *   updated or untouched, and the next fold (which sees the same batches, and maybe more)
 *   completes it.
 * - A batch counts for a link only if it was closed after the link was created, so the clicks
 *   of a deleted link never reach a new link with the same code.
 * - Each row is read again inside its transaction: one deleted since is skipped, or found again
 *   by its code if it was created again.
 */
export const foldClickLog = defineWriterTask<FoldArgs>(import.meta.url, 'foldClickLog', (db, args, context) =>
  fold(db, args, context),
);

async function fold(
  db: Database.Database,
  { spreadMs, partChars = FOLD_PART_CHARS }: FoldArgs,
  context: TaskContext,
): Promise<number> {
  // The batches' JSON is read one batch at a time: a large log holds tens of MiB of it.
  const rows = db
    .prepare('SELECT id, logged_at AS loggedAt, length(counts) AS chars FROM click_batches ORDER BY id')
    .all() as Array<{ id: number; loggedAt: string; chars: number }>;
  if (rows.length === 0) return 0;
  const through = rows[rows.length - 1].id;
  const loggedChars = rows.reduce((sum, row) => sum + row.chars, 0);
  const pacer = context.pace(
    taskDuty(foldMsPerLoggedChar === undefined ? undefined : foldMsPerLoggedChar * loggedChars, spreadMs),
  );
  // SQLite picks a part's entries out of a batch's JSON (json_each, in C): only those reach
  // JavaScript, as a code and the JSON of its days, packed at once (PackedBatch) and unpacked when
  // the code's rows are written. Parsing the whole batch in JavaScript made every entry an object
  // graph for every part, and a batch's graph (10 MiB for 10,000 codes) outlived the writer's
  // young generation, so the thread's heap grew by the log's size between full collections.
  const entriesOf = db
    .prepare<{ id: number; from: string | null; to: string | null }, [code: string, days: string]>(
      `SELECT value ->> 0, value -> 1 FROM json_each((SELECT counts FROM click_batches WHERE id = @id))
       WHERE (@from IS NULL OR value ->> 0 >= @from) AND (@to IS NULL OR value ->> 0 < @to)`,
    )
    .raw();
  // Each part is a range of codes holding about as many of the log's entries as the others: the
  // ranges' bounds are quantiles of a sample, every SAMPLE_EVERY-th entry's code of each batch (a
  // code logged in several batches weighs as often in the sample as in the part's work). Every
  // logged code in a Set grew the writer's heap by the log's size; SQLite sorting them all took
  // 0.5 s of the writer in one piece for a log of 200,000 counts. (Codes are ASCII: JavaScript's
  // order of them and SQLite's are the same.)
  const sampleOf = db
    .prepare<[number], string>(
      `SELECT value ->> 0 FROM json_each((SELECT counts FROM click_batches WHERE id = ?)) WHERE key % ${SAMPLE_EVERY} = 0`,
    )
    .pluck();
  const partCount = Math.ceil(loggedChars / partChars);
  let bounds: string[] = [];
  if (partCount > 1) {
    const sample: string[] = [];
    for (const { id } of rows) {
      for (const code of sampleOf.iterate(id)) sample.push(code);
      await pacer.slice();
    }
    sample.sort();
    // Distinct: a code sampled often could be several bounds.
    if (sample.length > 0) {
      bounds = [
        ...new Set(
          Array.from({ length: partCount - 1 }, (_, i) => sample[Math.floor(((i + 1) * sample.length) / partCount)]),
        ),
      ];
    }
  }
  // A row records the last batch it includes, whichever part wrote it: a fold cut off between
  // parts leaves the rows of the parts done complete and the others untouched, as within a part.
  for (let part = 0; part <= bounds.length; part++) {
    const from = part === 0 ? undefined : bounds[part - 1];
    const to = part === bounds.length ? undefined : bounds[part];
    // The part's tallies stay packed, one copy (PartBatch): a code's clicks are added up from
    // them when its row is written, with no Map of per-code totals beside them (an entry and an
    // object per code of the part).
    const batches: PartBatch[] = [];
    const codes: string[] = [];
    for (const { id, loggedAt } of rows) {
      // One entry at a time (iterate, not all): each is garbage as soon as it is packed.
      const entries = entriesOf.iterate({ id, from: from ?? null, to: to ?? null });
      // logged_at is ISO 8601 in UTC: its first ten characters are the UTC day.
      const counts = packLoggedTexts(entries, loggedAt.slice(0, 10));
      batches.push({ id, loggedAt, counts });
      for (const code of counts.codes()) codes.push(code);
      await pacer.slice();
    }
    await foldPart(distinctSorted(codes), batches, { db, through, pacer });
    // The part's working set is garbage now; collected here, the next part reuses its room
    // instead of adding to it (the writer's old generation is otherwise collected rarely). After
    // the last part the writer collects once the task ends.
    if (part < bounds.length) context.collectGarbage();
  }
  db.prepare('DELETE FROM click_batches WHERE id <= ?').run(through);
  foldMsPerLoggedChar = pacer.finish() / loggedChars;
  return through;
}

/** What every part of one fold shares. */
interface FoldScope {
  db: Database.Database;
  /** The last batch the fold adds: every row it writes records it. */
  through: number;
  pacer: TaskPacer;
}

/**
 * Adds one part's batches (every batch of the fold, with the part's codes only) to the links and
 * their daily rows. `codes`: the part's codes, distinct, sorted.
 */
async function foldPart(
  codes: readonly string[],
  batches: readonly PartBatch[],
  { db, through, pacer }: FoldScope,
): Promise<void> {
  /** The batches with clicks of `code`; for a `row`, only those it does not include, closed after it was created. */
  const batchesWith = (code: string, row?: LinkRow): PartBatch[] => {
    const withCode: PartBatch[] = [];
    for (const batch of batches) {
      if (row && (batch.id <= row[2] || batch.loggedAt < row[1])) continue;
      if (batch.counts.has(code)) withCode.push(batch);
    }
    return withCode;
  };
  const addDay = db.prepare(
    `INSERT INTO link_daily_clicks (code, day, clicks, bots) VALUES (?, ?, ?, ?)
     ON CONFLICT (code, day) DO UPDATE SET clicks = clicks + excluded.clicks, bots = bots + excluded.bots`,
  );
  const addHost = db.prepare(
    `INSERT INTO link_daily_referrers (code, day, host, clicks) VALUES (?, ?, ?, ?)
     ON CONFLICT (code, day, host) DO UPDATE SET clicks = clicks + excluded.clicks`,
  );
  const addLabel = db.prepare(
    `INSERT INTO link_daily_labels (code, day, dimension, label, clicks) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (code, day, dimension, label) DO UPDATE SET clicks = clicks + excluded.clicks`,
  );
  // The monthly sums of the same rows (a window's full months are read there).
  const addMonthHost = db.prepare(
    `INSERT INTO link_monthly_referrers (code, month, host, clicks) VALUES (?, ?, ?, ?)
     ON CONFLICT (code, month, host) DO UPDATE SET clicks = clicks + excluded.clicks`,
  );
  const addMonthLabel = db.prepare(
    `INSERT INTO link_monthly_labels (code, month, dimension, label, clicks) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (code, month, dimension, label) DO UPDATE SET clicks = clicks + excluded.clicks`,
  );
  // And the account's (the overview reads those): its day, the link's day, countries, hosts.
  const addAccountDay = db.prepare(
    `INSERT INTO account_daily_clicks (account_id, day, clicks, bots) VALUES (?, ?, ?, ?)
     ON CONFLICT (account_id, day) DO UPDATE SET clicks = clicks + excluded.clicks, bots = bots + excluded.bots`,
  );
  const addAccountLink = db.prepare(
    `INSERT INTO account_daily_links (account_id, day, code, clicks) VALUES (?, ?, ?, ?)
     ON CONFLICT (account_id, day, code) DO UPDATE SET clicks = clicks + excluded.clicks`,
  );
  const addAccountCountry = db.prepare(
    `INSERT INTO account_daily_countries (account_id, day, country, clicks) VALUES (?, ?, ?, ?)
     ON CONFLICT (account_id, day, country) DO UPDATE SET clicks = clicks + excluded.clicks`,
  );
  const addAccountHost = db.prepare(
    `INSERT INTO account_daily_referrers (account_id, day, host, clicks) VALUES (?, ?, ?, ?)
     ON CONFLICT (account_id, day, host) DO UPDATE SET clicks = clicks + excluded.clicks`,
  );
  /** Writes a link's days; `accountId` null: an anonymous link, which no account overview counts. */
  const addDaily = (code: string, withCode: readonly PartBatch[], accountId: string | null) => {
    const counts = withCode.map((batch) => batch.counts);
    for (const [day, { clicks, bots, referrers, labels }] of mergeBatches(code, counts)) {
      const month = day.slice(0, 7);
      addDay.run(code, day, clicks, bots);
      if (accountId !== null) {
        addAccountDay.run(accountId, day, clicks, bots);
        addAccountLink.run(accountId, day, code, clicks);
      }
      for (const [host, hostClicks] of referrers) {
        addHost.run(code, day, host, hostClicks);
        addMonthHost.run(code, month, host, hostClicks);
        if (accountId !== null) addAccountHost.run(accountId, day, host, hostClicks);
      }
      for (const [key, labelClicks] of labels) {
        const [dimension, label] = splitLabelKey(key);
        addLabel.run(code, day, dimension, label, labelClicks);
        addMonthLabel.run(code, month, dimension, label, labelClicks);
        if (accountId !== null && dimension === 'country') addAccountCountry.run(accountId, day, label, labelClicks);
      }
    }
  };

  // Each code's rowid, from the code index alone (it holds the rowid), in code order: the index
  // is read front to back once.
  const rowidOf = db.prepare<[string], number>('SELECT rowid FROM links WHERE code = ?').pluck();
  const rowids: number[] = [];
  const found: string[] = [];
  const lookUp = db.transaction((part: readonly string[]) => {
    for (const code of part) {
      const rowid = rowidOf.get(code);
      if (rowid === undefined) continue;
      rowids.push(rowid);
      found.push(code);
    }
  });
  for (let start = 0; start < codes.length; start += FOLD_LOOKUPS_PER_TRANSACTION) {
    lookUp(codes.slice(start, start + FOLD_LOOKUPS_PER_TRANSACTION));
    await pacer.slice();
  }
  // Then the rows in table order: each page is read and written once, its rows updated together.
  const order = tableOrder(rowids);
  await pacer.slice();

  // The usual case in one statement: the row is still the one found, and every logged batch with
  // its code is new to it and was closed after it was created.
  const addAll = db
    .prepare<[number, number, number, string, number, string], [accountId: string | null]>(
      `UPDATE links SET clicks = clicks + ?, clicks_through_batch = ?
       WHERE rowid = ? AND code = ? AND clicks_through_batch < ? AND created_at <= ?
       RETURNING account_id`,
    )
    .raw();
  // Otherwise the row is read (as an array: an object per row costs noticeably more).
  const rowAt = db
    .prepare<[number], LinkRow>('SELECT code, created_at, clicks_through_batch, account_id FROM links WHERE rowid = ?')
    .raw();
  const add = db.prepare('UPDATE links SET clicks = clicks + ?, clicks_through_batch = ? WHERE rowid = ?');
  const addSome = db.transaction((from: number, to: number) => {
    for (let k = from; k < to; k++) {
      const i = order[k];
      const rowid = rowids[i];
      const code = found[i];
      // Every batch of the part with the code (at least one: the code came from one).
      const withCode = batchesWith(code);
      const updated = addAll.get(clicksIn(code, withCode), through, rowid, code, withCode[0].id, withCode[0].loggedAt);
      if (updated !== undefined) {
        addDaily(code, withCode, updated[0]);
        continue;
      }
      let at = rowid;
      let row = rowAt.get(at);
      if (row?.[0] !== code) {
        // Deleted since it was found, maybe created again (under another rowid).
        const moved = rowidOf.get(code);
        if (moved === undefined) continue;
        at = moved;
        row = rowAt.get(at)!;
      }
      if (row[2] >= through) continue;
      const some = batchesWith(code, row);
      add.run(clicksIn(code, some), through, at);
      addDaily(code, some, row[3]);
    }
  });
  for (let start = 0; start < order.length; start += FOLD_ROWS_PER_TRANSACTION) {
    // IMMEDIATE: take the write lock up front, so a read that turns into a write cannot fail
    // with SQLITE_BUSY_SNAPSHOT when another connection wrote meanwhile.
    addSome.immediate(start, Math.min(order.length, start + FOLD_ROWS_PER_TRANSACTION));
    await pacer.slice();
  }
}

/** The clicks of `code` in `batches`. */
function clicksIn(code: string, batches: readonly PartBatch[]): number {
  let clicks = 0;
  for (const { counts } of batches) clicks += counts.clicks(code);
  return clicks;
}

/** `codes` sorted, each once (in place). */
function distinctSorted(codes: string[]): string[] {
  codes.sort();
  let kept = 0;
  for (let i = 0; i < codes.length; i++) if (i === 0 || codes[i] !== codes[kept - 1]) codes[kept++] = codes[i];
  codes.length = kept;
  return codes;
}

/**
 * The positions of `rowids` (distinct) in ascending rowid order. Sorted as numbers, each rowid
 * packed with its position (rowid × 2^21 + position, exact in a double for rowids below 2^32):
 * a typed array's native sort takes a fraction of the time of a comparator sort, which the rare
 * larger cases fall back to.
 */
function tableOrder(rowids: number[]): ArrayLike<number> {
  const n = rowids.length;
  if (n >= POSITIONS || rowids.some((rowid) => rowid >= 2 ** 32 || rowid < 0)) {
    return Array.from(rowids.keys()).sort((a, b) => rowids[a] - rowids[b]);
  }
  const packed = new Float64Array(n);
  for (let i = 0; i < n; i++) packed[i] = rowids[i] * POSITIONS + i;
  packed.sort();
  const order = new Uint32Array(n);
  for (let k = 0; k < n; k++) order[k] = packed[k] % POSITIONS;
  return order;
}
