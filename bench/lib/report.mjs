// The table `npm run bench` prints (and the README shows).

const COLUMNS = [
  { title: 'links', value: (r) => r.links.toLocaleString('en') },
  { title: 'database', value: (r) => r.database },
  { title: 'server', value: (r) => r.target },
  { title: 'scenario', value: (r) => (r.note ? `${r.scenario} (${r.note})` : r.scenario) },
  { title: 'conns', value: (r) => String(r.result.connections), right: true },
  { title: 'req/s', value: (r) => r.result.requestsPerSecond.toLocaleString('en'), right: true },
  { title: 'p50 ms', value: (r) => formatMs(r.result.latencyMs.p50), right: true },
  { title: 'p99 ms', value: (r) => formatMs(r.result.latencyMs.p99), right: true },
  {
    title: 'RSS MiB',
    value: (r) => (r.result.rss.peakMiB === null ? '—' : r.result.rss.peakMiB.toFixed(0)),
    right: true,
  },
  { title: '× node:http', value: (r) => (r.ratio === null ? '—' : r.ratio.toFixed(2)), right: true },
  { title: '', value: (r) => (r.ok ? '' : `! ${r.problems.join(', ')}`) },
];

function formatMs(ms) {
  return ms < 1 ? ms.toFixed(2) : ms < 10 ? ms.toFixed(1) : ms.toFixed(0);
}

/**
 * A Markdown table: readable in a terminal and pasteable into the README as it is.
 * @param {any[]} rows
 */
export function formatTable(rows) {
  const cells = rows.map((row) => COLUMNS.map((column) => column.value(row)));
  const widths = COLUMNS.map((column, i) => Math.max(column.title.length, ...cells.map((line) => line[i].length)));
  const line = (values) =>
    `| ${values.map((value, i) => (COLUMNS[i].right ? value.padStart(widths[i]) : value.padEnd(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((width, i) => (COLUMNS[i].right ? `${'-'.repeat(width + 1)}:` : '-'.repeat(width + 2))).join('|')}|`;
  return [line(COLUMNS.map((c) => c.title)), rule, ...cells.map(line)].join('\n');
}
