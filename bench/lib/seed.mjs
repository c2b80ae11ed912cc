// Fills a freshly migrated database with the benchmark's links, straight through the database
// driver: going through the API would take longer than the benchmark itself at 1M links.
// Rows look exactly like the ones the service writes (same columns, same timestamp format).
import Database from 'better-sqlite3';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { seededCode, seededUrl } from './codes.mjs';

/**
 * Links owned by the benchmark account unless told otherwise (the rest are anonymous): what the
 * list and search scenarios page through. 10k: the account size the API's targets are set at.
 */
export const OWNED_LINKS = 10_000;
const BATCH = 10_000;
const BASE_TIME = Date.parse('2026-01-01T00:00:00.000Z');

/**
 * The account whose token the authenticated scenarios send. The token has the service's shape
 * (`sl_` + 40 base62) and, as the service does, only its SHA-256 is stored.
 */
export function benchAccount(email = 'bench@example.com') {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const token = `sl_${Array.from(randomBytes(40), (byte) => alphabet[byte % 62]).join('')}`;
  // A dashboard session of the account, for the page scenarios: the cookie holds the raw id,
  // the database its SHA-256, as the service stores them.
  const session = randomBytes(32).toString('base64url');
  return {
    id: randomUUID(),
    email,
    tokenId: randomUUID(),
    token,
    tokenHash: createHash('sha256').update(token, 'utf8').digest('hex'),
    session,
    sessionHash: createHash('sha256').update(session).digest('hex'),
  };
}

/**
 * Link number i: the first `owned` belong to the account, created one second apart so the
 * list has a real order.
 * @param {number} i
 * @param {string} accountId
 * @param {number} owned
 */
function linkRow(i, accountId, owned) {
  return {
    code: seededCode(i),
    url: seededUrl(i),
    accountId: i < owned ? accountId : null,
    time: BASE_TIME + i * 1000,
  };
}

/**
 * Tags of the account's links (for the tag scenarios and so the list reads links that have
 * tags): every one has BENCH_TAG, the worst case of a tag's list (its whole account), and every
 * tenth BENCH_TENTH_TAG as well.
 * @param {number} i
 */
function linkTags(i) {
  return i % 10 === 0 ? [BENCH_TAG, BENCH_TENTH_TAG] : [BENCH_TAG];
}
export const BENCH_TAG = 'news';
export const BENCH_TENTH_TAG = 'tenth';

/** Daily rows seeded for the clicks scenario's link (the first owned link): a year and a day. */
export const CLICK_HISTORY_DAYS = 366;
/** Referrer hosts per day of that history. */
const HOSTS_PER_DAY = 8;

/**
 * People's clicks per day of that history by visitor label, as a busy link's day has them: 12
 * countries, 3 devices, 5 browsers, 5 systems (25 rows a day, 9,150 over the year).
 */
const LABELS = [
  ...['US', 'DE', 'GB', 'FR', 'NL', 'IN', 'BR', 'JP', 'CA', 'ES', 'IT', 'ZZ'].map((label) => ['country', label]),
  ...['mobile', 'desktop', 'tablet'].map((label) => ['device', label]),
  ...['Chrome', 'Safari', 'Firefox', 'Microsoft Edge', 'Samsung Internet for Android'].map((label) => [
    'browser',
    label,
  ]),
  ...['Android', 'iOS', 'Windows', 'macOS', 'Linux'].map((label) => ['os', label]),
];

/**
 * The clicks scenario's history: per UTC day up to yesterday, its clicks, bots, referrer rows
 * and label rows ([dimension, label, clicks]).
 */
function clickHistory() {
  const days = [];
  for (let back = 1; back <= CLICK_HISTORY_DAYS; back++) {
    const day = new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10);
    const hosts = Array.from({ length: HOSTS_PER_DAY }, (_, h) => [`site${(back + h) % 40}.example`, h + 1]);
    const people = hosts.reduce((sum, [, clicks]) => sum + clicks, 0);
    const labels = LABELS.map(([dimension, label], i) => [dimension, label, 1 + ((back + i) % 7)]);
    days.push({ day, clicks: people + 6, bots: 6, hosts, labels });
  }
  return days;
}

/**
 * The daily rows summed per month and per account, as the click flush writes them (builds from
 * before visitor labels have none of these tables).
 */
function monthlySums(labelled) {
  if (!labelled) return [];
  return [
    `INSERT INTO link_monthly_referrers (code, month, host, clicks)
     SELECT code, substr(day, 1, 7), host, sum(clicks) FROM link_daily_referrers GROUP BY 1, 2, 3`,
    `INSERT INTO link_monthly_labels (code, month, dimension, label, clicks)
     SELECT code, substr(day, 1, 7), dimension, label, sum(clicks) FROM link_daily_labels GROUP BY 1, 2, 3, 4`,
    `INSERT INTO account_daily_clicks (account_id, day, clicks, bots)
     SELECT l.account_id, d.day, sum(d.clicks), sum(d.bots) FROM link_daily_clicks d JOIN links l ON l.code = d.code
     WHERE l.account_id IS NOT NULL GROUP BY 1, 2`,
    `INSERT INTO account_daily_links (account_id, day, code, clicks)
     SELECT l.account_id, d.day, d.code, d.clicks FROM link_daily_clicks d JOIN links l ON l.code = d.code
     WHERE l.account_id IS NOT NULL`,
    `INSERT INTO account_daily_referrers (account_id, day, host, clicks)
     SELECT l.account_id, r.day, r.host, sum(r.clicks) FROM link_daily_referrers r JOIN links l ON l.code = r.code
     WHERE l.account_id IS NOT NULL GROUP BY 1, 2, 3`,
    `INSERT INTO account_daily_countries (account_id, day, country, clicks)
     SELECT l.account_id, d.day, d.label, sum(d.clicks) FROM link_daily_labels d JOIN links l ON l.code = d.code
     WHERE l.account_id IS NOT NULL AND d.dimension = 'country' GROUP BY 1, 2, 3`,
  ];
}

/** Links of the account with clicks in the last 30 days, for the account overview (`GET /api/clicks`). */
export const OVERVIEW_LINKS = 500;
const OVERVIEW_DAYS = 30;

/**
 * The overview scenario's clicks: links 1 to OVERVIEW_LINKS of the `linkCount` the account owns (the clicks scenario's link is 0)
 * each with a daily row on each of the last 30 days, two referrer rows and four label rows.
 * Rows of one table as arrays of columns: [code, day, ...].
 */
function overviewHistory(linkCount) {
  const count = Math.min(OVERVIEW_LINKS, linkCount - 1);
  const days = [];
  const referrers = [];
  const labels = [];
  for (let back = 1; back <= OVERVIEW_DAYS; back++) {
    const day = new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10);
    for (let i = 1; i <= count; i++) {
      const code = seededCode(i);
      const clicks = 1 + ((i * back) % 9);
      days.push([code, day, clicks + 1, 1]);
      referrers.push([code, day, `site${i % 40}.example`, clicks], [code, day, '(direct)', 1]);
      for (const [dimension, label] of [
        LABELS[i % 12],
        LABELS[12 + (i % 3)],
        LABELS[15 + (i % 5)],
        LABELS[20 + (i % 5)],
      ])
        labels.push([code, day, dimension, label, clicks + 1]);
    }
  }
  return { days, referrers, labels };
}

/**
 * @param {string} file  path of a SQLite database already migrated by the service
 * @param {number} links
 * @param {ReturnType<typeof benchAccount>} account
 * @param {number} [owned]  how many of the links the account owns
 */
export function seedSqlite(file, links, account, owned = OWNED_LINKS) {
  const db = new Database(file);
  // Seeding is not the thing measured: skip fsyncs and give the page cache room. The service
  // reopens the file with its own settings.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  // Prisma's SQLite adapter stores DateTime as ISO 8601 with an explicit +00:00 offset.
  const iso = (ms) => new Date(ms).toISOString().replace('Z', '+00:00');
  db.prepare('INSERT INTO accounts (id, email, created_at) VALUES (?, ?, ?)').run(
    account.id,
    account.email,
    iso(BASE_TIME),
  );
  db.prepare(
    `INSERT INTO api_tokens (id, account_id, name, token_hash, prefix, scopes, created_at)
     VALUES (?, ?, 'bench', ?, ?, 'links:read links:write', ?)`,
  ).run(account.tokenId, account.id, account.tokenHash, account.token.slice(0, 7), iso(BASE_TIME));
  // Seen now: sessions idle for SESSION_TTL_DAYS end.
  db.prepare('INSERT INTO sessions (id_hash, account_id, created_at, last_seen_at) VALUES (?, ?, ?, ?)').run(
    account.sessionHash,
    account.id,
    iso(Date.now()),
    iso(Date.now()),
  );

  const insert = db.prepare(
    'INSERT INTO links (code, url, account_id, clicks, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?)',
  );
  const insertBatch = db.transaction((from, to) => {
    for (let i = from; i < to; i++) {
      const row = linkRow(i, account.id, owned);
      const at = iso(row.time);
      insert.run(row.code, row.url, row.accountId, at, at);
    }
  });
  for (let from = 0; from < links; from += BATCH * 10) insertBatch(from, Math.min(links, from + BATCH * 10));
  // Builds before tags (`--before`) have no link_tags.
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'link_tags'").get()) {
    const tag = db.prepare('INSERT INTO link_tags (code, tag, account_id, created_at) VALUES (?, ?, ?, ?)');
    db.transaction(() => {
      for (let i = 0; i < owned; i++) {
        const row = linkRow(i, account.id, owned);
        for (const name of linkTags(i)) tag.run(row.code, name, account.id, iso(row.time));
      }
    })();
  }
  const code = seededCode(0);
  // A build from before visitor labels (--before) has no such table; its history has no labels.
  const labelled = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'link_daily_labels'").get() !== undefined;
  const addDay = db.prepare('INSERT INTO link_daily_clicks (code, day, clicks, bots) VALUES (?, ?, ?, ?)');
  const addHost = db.prepare('INSERT INTO link_daily_referrers (code, day, host, clicks) VALUES (?, ?, ?, ?)');
  const addLabel = labelled
    ? db.prepare('INSERT INTO link_daily_labels (code, day, dimension, label, clicks) VALUES (?, ?, ?, ?, ?)')
    : undefined;
  db.transaction(() => {
    for (const { day, clicks, bots, hosts, labels } of clickHistory()) {
      addDay.run(code, day, clicks, bots);
      for (const [host, hostClicks] of hosts) addHost.run(code, day, host, hostClicks);
      for (const label of labels) addLabel?.run(code, day, ...label);
    }
    const overview = overviewHistory(Math.min(links, owned));
    for (const row of overview.days) addDay.run(...row);
    for (const row of overview.referrers) addHost.run(...row);
    for (const row of overview.labels) addLabel?.run(...row);
  })();
  for (const statement of monthlySums(labelled)) db.exec(statement);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.exec('ANALYZE');
  db.close();
}

/**
 * @param {string} url  a PostgreSQL database already migrated by the service
 * @param {number} links
 * @param {ReturnType<typeof benchAccount>} account
 * @param {number} [owned]  how many of the links the account owns
 */
export async function seedPostgres(url, links, account, owned = OWNED_LINKS) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SET synchronous_commit = off');
    await client.query('INSERT INTO accounts (id, email, created_at) VALUES ($1, $2, $3)', [
      account.id,
      account.email,
      new Date(BASE_TIME).toISOString(),
    ]);
    await client.query(
      `INSERT INTO api_tokens (id, account_id, name, token_hash, prefix, scopes, created_at)
       VALUES ($1, $2, 'bench', $3, $4, 'links:read links:write', $5)`,
      [account.tokenId, account.id, account.tokenHash, account.token.slice(0, 7), new Date(BASE_TIME).toISOString()],
    );
    await client.query('INSERT INTO sessions (id_hash, account_id, created_at, last_seen_at) VALUES ($1, $2, $3, $3)', [
      account.sessionHash,
      account.id,
      new Date().toISOString(),
    ]);
    // One multi-row INSERT per batch: the arrays travel as four parameters and unnest() turns
    // them back into rows.
    for (let from = 0; from < links; from += BATCH) {
      const codes = [],
        urls = [],
        owners = [],
        times = [];
      for (let i = from; i < Math.min(links, from + BATCH); i++) {
        const row = linkRow(i, account.id, owned);
        codes.push(row.code);
        urls.push(row.url);
        owners.push(row.accountId);
        times.push(new Date(row.time).toISOString());
      }
      await client.query(
        `INSERT INTO links (code, url, account_id, clicks, created_at, updated_at)
         SELECT code, url, account_id, 0, at, at
         FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamp[]) AS t(code, url, account_id, at)`,
        [codes, urls, owners, times],
      );
    }
    const { rows: tagTable } = await client.query("SELECT to_regclass('link_tags') IS NOT NULL AS present");
    if (tagTable[0].present) {
      const tagged = Array.from({ length: owned }, (_, i) => linkTags(i).map((tag) => [seededCode(i), tag])).flat();
      await client.query(
        `INSERT INTO link_tags (code, tag, account_id, created_at)
         SELECT t.code, t.tag, l.account_id, l.created_at FROM unnest($1::text[], $2::text[]) AS t(code, tag)
         JOIN links l ON l.code = t.code`,
        [tagged.map(([code]) => code), tagged.map(([, tag]) => tag)],
      );
      await client.query('VACUUM ANALYZE link_tags');
    }
    const code = seededCode(0);
    const history = clickHistory();
    const overview = overviewHistory(Math.min(links, owned));
    const days = [...history.map((d) => [code, d.day, d.clicks, d.bots]), ...overview.days];
    const hosts = [
      ...history.flatMap(({ day, hosts }) => hosts.map(([host, clicks]) => [code, day, host, clicks])),
      ...overview.referrers,
    ];
    const labels = [
      ...history.flatMap(({ day, labels }) => labels.map((label) => [code, day, ...label])),
      ...overview.labels,
    ];
    /** The rows' columns, each as one array parameter. */
    const columns = (rows) => rows[0].map((_, c) => rows.map((row) => row[c]));
    await client.query(
      `INSERT INTO link_daily_clicks (code, day, clicks, bots)
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int[])`,
      columns(days),
    );
    await client.query(
      `INSERT INTO link_daily_referrers (code, day, host, clicks)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[])`,
      columns(hosts),
    );
    // A build from before visitor labels (--before) has no such table; its history has no labels.
    const { rows } = await client.query("SELECT to_regclass('link_daily_labels') IS NOT NULL AS labelled");
    if (rows[0].labelled) {
      await client.query(
        `INSERT INTO link_daily_labels (code, day, dimension, label, clicks)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[])`,
        columns(labels),
      );
    }
    for (const statement of monthlySums(rows[0].labelled)) await client.query(statement);
    await client.query('VACUUM ANALYZE link_daily_clicks, link_daily_referrers');
    await client.query('VACUUM ANALYZE links');
  } finally {
    await client.end();
  }
}

/** Every scope a token can have but `admin`: what a token made without `--scopes` gets. */
const ALL_SCOPES = 'links:read links:write webhooks:read webhooks:write';

/**
 * Another account with a token of every scope (no links, no session), in a database already
 * seeded: the webhook scenarios' accounts, one with an endpoint and one without.
 * @param {'sqlite' | 'postgresql'} kind
 * @param {string} location  the SQLite file or the PostgreSQL URL
 * @param {ReturnType<typeof benchAccount>} account
 */
export async function addAccount(kind, location, account) {
  const at = new Date().toISOString();
  if (kind === 'sqlite') {
    const db = new Database(location);
    try {
      db.pragma('busy_timeout = 5000');
      const iso = at.replace('Z', '+00:00');
      db.transaction(() => {
        db.prepare('INSERT INTO accounts (id, email, created_at) VALUES (?, ?, ?)').run(account.id, account.email, iso);
        db.prepare(
          `INSERT INTO api_tokens (id, account_id, name, token_hash, prefix, scopes, created_at)
           VALUES (?, ?, 'bench', ?, ?, ?, ?)`,
        ).run(account.tokenId, account.id, account.tokenHash, account.token.slice(0, 7), ALL_SCOPES, iso);
      })();
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  try {
    await client.query('INSERT INTO accounts (id, email, created_at) VALUES ($1, $2, $3)', [
      account.id,
      account.email,
      at,
    ]);
    await client.query(
      `INSERT INTO api_tokens (id, account_id, name, token_hash, prefix, scopes, created_at)
       VALUES ($1, $2, 'bench', $3, $4, $5, $6)`,
      [account.tokenId, account.id, account.tokenHash, account.token.slice(0, 7), ALL_SCOPES, at],
    );
  } finally {
    await client.end();
  }
}

/**
 * Rows in `links` and the sum of their clicks: what the runner checks after a scenario.
 * @param {'sqlite' | 'postgresql'} kind
 * @param {string} location  the SQLite file or the PostgreSQL URL
 */
export async function linkTotals(kind, location) {
  const sql = 'SELECT COUNT(*) AS links, COALESCE(SUM(clicks), 0) AS clicks FROM links';
  if (kind === 'sqlite') {
    const db = new Database(location, { readonly: true });
    try {
      const row = db.prepare(sql).get();
      return { links: Number(row.links), clicks: Number(row.clicks) };
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  try {
    const { rows } = await client.query(sql);
    return { links: Number(rows[0].links), clicks: Number(rows[0].clicks) };
  } finally {
    await client.end();
  }
}
