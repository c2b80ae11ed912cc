// What both baselines share: their arguments, the links they serve, and the line that tells the
// runner they are ready.
import { seededCode, seededUrl } from '../lib/codes.mjs';

/** `<port> <links>` from the command line. */
export function readArgs() {
  const [port = '0', links = '1000'] = process.argv.slice(2);
  return { port: Number(port), links: Number(links) };
}

/**
 * The same code → target pairs the runner seeds into the service's database.
 * @param {number} links
 */
export function buildLinkMap(links) {
  const map = new Map();
  for (let i = 0; i < links; i++) map.set(seededCode(i), seededUrl(i));
  return map;
}

/**
 * The runner waits for this line on stdout before it starts measuring.
 * @param {string} name
 * @param {number} port
 */
export function announce(name, port) {
  process.stdout.write(`listening ${name} ${port}\n`);
}

// The runner stops baselines with SIGTERM; exit at once (nothing to flush).
process.on('SIGTERM', () => process.exit(0));
