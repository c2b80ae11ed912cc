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
  { title: 'RSS MiB', value: (r) => rss(r.result), right: true },
  { title: 'CPU µs/req', value: (r) => cpu(r.result), right: true },
  { title: '× node:http', value: (r) => (r.ratio === null ? '—' : r.ratio.toFixed(2)), right: true },
  { title: '', value: (r) => (r.ok ? '' : `! ${r.problems.join(', ')}`) },
];

function formatMs(ms) {
  return ms < 1 ? ms.toFixed(2) : ms < 10 ? ms.toFixed(1) : ms.toFixed(0);
}

const percent = (change) => `${change > 0 ? '+' : change < 0 ? '−' : '±'}${Math.abs(change * 100).toFixed(1)} %`;
/**
 * CPU per request of a result, in µs: the server process plus, for a local PostgreSQL, the
 * database server's processes; null when unknown.
 */
export function totalCpu(result) {
  const { serviceUs, databaseUs } = result.cpu ?? {};
  if (serviceUs === null || serviceUs === undefined) return null;
  return serviceUs + (databaseUs ?? 0);
}

/** "52", or "41 + 22" when the database server's share was measured apart. */
const cpu = (result) => {
  const { serviceUs, databaseUs } = result.cpu ?? {};
  if (serviceUs === null || serviceUs === undefined) return '—';
  return databaseUs === null || databaseUs === undefined
    ? serviceUs.toFixed(0)
    : `${serviceUs.toFixed(0)} + ${databaseUs.toFixed(0)}`;
};
const rss = (result) => (result.rss.peakMiB === null ? '—' : result.rss.peakMiB.toFixed(0));

/**
 * A Markdown table: readable in a terminal and pasteable into the README as it is.
 * @param {any[]} rows
 */
export function formatTable(rows, columns = COLUMNS) {
  const cells = rows.map((row) => columns.map((column) => column.value(row)));
  const widths = columns.map((column, i) => Math.max(column.title.length, ...cells.map((line) => line[i].length)));
  const line = (values) =>
    `| ${values.map((value, i) => (columns[i].right ? value.padStart(widths[i]) : value.padEnd(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((width, i) => (columns[i].right ? `${'-'.repeat(width + 1)}:` : '-'.repeat(width + 2))).join('|')}|`;
  return [line(columns.map((c) => c.title)), rule, ...cells.map(line)].join('\n');
}

/**
 * The flat-cost comparison as a Markdown table: one row per database and scenario, the smallest
 * N of the run beside the largest.
 * @param {any[]} comparisons
 */
export function formatFlatCostTable(comparisons) {
  const sizes = comparisons[0]?.sizes ?? [];
  const columns = [
    { title: 'database', value: (c) => c.database },
    { title: 'scenario', value: (c) => (c.note ? `${c.scenario} (${c.note})` : c.scenario) },
    ...['small', 'large'].flatMap((size, i) => {
      const links = sizes[i]?.toLocaleString('en');
      return [
        { title: `req/s, ${links}`, value: (c) => c[size].requestsPerSecond.toLocaleString('en'), right: true },
        { title: `p99 ms, ${links}`, value: (c) => formatMs(c[size].latencyMs.p99), right: true },
        { title: `RSS MiB, ${links}`, value: (c) => rss(c[size]), right: true },
        { title: `CPU µs/req, ${links}`, value: (c) => cpu(c[size]), right: true },
      ];
    }),
    { title: 'req/s change', value: (c) => percent(c.throughputChange), right: true },
    { title: 'p99 change', value: (c) => percent(c.p99Change), right: true },
    { title: 'CPU change', value: (c) => (c.cpuChange === null ? '—' : percent(c.cpuChange)), right: true },
  ];
  return formatTable(comparisons, columns);
}

/**
 * The change feed's figures (issue 55) as a Markdown table: per database, the idle instance's CPU
 * and how soon a change through the other instance is answered.
 * @param {any[]} results
 */
export function formatChangeFeedTable(results) {
  const ms = (value) => (value === null || value === undefined ? '—' : formatMs(value));
  const idle = ({ serviceUsPerSecond, databaseUsPerSecond }) =>
    serviceUsPerSecond === null
      ? '—'
      : `${Math.round(serviceUsPerSecond).toLocaleString('en')}${databaseUsPerSecond === null ? '' : ` + ${Math.round(databaseUsPerSecond).toLocaleString('en')}`}`;
  const columns = [
    { title: 'database', value: (r) => r.database },
    { title: 'runs', value: (r) => String(r.runs), right: true },
    {
      title: 'idle CPU, % of a core',
      value: (r) => (r.idle.serviceUsPerSecond === null ? '—' : (r.idle.serviceUsPerSecond / 1e4).toFixed(2)),
      right: true,
    },
    { title: 'idle CPU µs/s', value: (r) => idle(r.idle), right: true },
    { title: 'change visible, median ms', value: (r) => ms(r.visibleMs.median), right: true },
    { title: 'p95 ms', value: (r) => ms(r.visibleMs.p95), right: true },
    { title: 'slowest ms', value: (r) => ms(r.visibleMs.max), right: true },
    { title: 'edit acknowledged, median ms', value: (r) => ms(r.acknowledgedMs.median), right: true },
    { title: 'after the answer, median ms', value: (r) => ms(r.afterAnswerMs?.median), right: true },
    { title: 'after the answer, slowest ms', value: (r) => ms(r.afterAnswerMs?.max), right: true },
    {
      title: 'after the command ended, slowest ms',
      value: (r) => (r.commandMs?.length ? ms(Math.max(...r.commandMs.map((c) => c.afterEnd))) : '—'),
      right: true,
    },
  ];
  return formatTable(results, columns);
}
