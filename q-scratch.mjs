import Database from 'better-sqlite3';
function time(name, f) { for (let i=0;i<50;i++) f(); const t=process.hrtime.bigint(); const n=300; let r; for (let i=0;i<n;i++) r=f(); console.log(name, (Number(process.hrtime.bigint()-t)/n/1000).toFixed(0), 'µs', JSON.stringify(r).slice(0,40)); }
const w = new Database('/tmp/prof/c.db');
w.exec(`CREATE INDEX IF NOT EXISTS links_search ON links(account_id, created_at DESC, code, url)`);
w.close();
for (const mmap of [0, 1<<30]) {
  const db = new Database('/tmp/prof/c.db', { readonly: true });
  db.pragma('mmap_size='+mmap);
  const [acc] = db.prepare('select id from accounts limit 1').raw().all();
  const cols = 'code, url, account_id, clicks, clicks_through_batch, created_at, updated_at, expires_at';
  for (const idx of ['links_account_id_created_at_code_idx','links_search']) {
    const like = db.prepare(`SELECT count(*) FROM links INDEXED BY ${idx} WHERE account_id = ? AND (code LIKE ? ESCAPE '\\' OR url LIKE ? ESCAPE '\\')`).raw();
    time(`mmap ${mmap} ${idx} count like`, () => like.all(acc[0], '%articles/123%', '%articles/123%'));
    const page = db.prepare(`SELECT rowid FROM links INDEXED BY ${idx} WHERE account_id = ? AND (code LIKE ? ESCAPE '\\' OR url LIKE ? ESCAPE '\\') ORDER BY created_at DESC, code LIMIT 20`).raw();
    time(`mmap ${mmap} ${idx} page rowids`, () => page.all(acc[0], '%articles/123%', '%articles/123%'));
  }
  db.close();
}
