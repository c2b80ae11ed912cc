import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { ApiError } from '../common/errors/api-error.js';
import { pointsAtService } from '../links/target-url.js';

/** The longest endpoint URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Addresses a receiver may not be at (unless WEBHOOK_ALLOW_PRIVATE): what would let a webhook
 * reach the service's own host or network (server-side request forgery). Loopback, private,
 * link-local, unique-local and unspecified as the contract names them, and the other ranges that
 * are never a public receiver (shared address space, multicast, reserved, broadcast).
 */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 (unspecified)
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  // NAT64 around the well-known /96 (which isForbiddenAddress judges by the IPv4 address in it):
  // the local-use 64:ff9b:1::/48 (RFC 8215), where the IPv4 address sits wherever the network's
  // prefix length puts it, and the rest of 64:ff9b::/32, which is no public receiver either.
  ['64:ff9b::', 32],
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard-only
  // Teredo (RFC 4380): a tunnel to the client IPv4 address (stored inverted in the last 32
  // bits) through a relay of the service's host or network; never a receiver's address.
  ['2001::', 32],
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address (with a dotted IPv4 tail, if any, as two groups). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const first = parse(head);
  const last = parse(tail);
  const zeros = tail === undefined ? [] : Array.from<number>({ length: 8 - first.length - last.length }).fill(0);
  return [...first, ...zeros, ...last];
}

function ipv4FromGroups(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * The IPv4 address an IPv6 address stands for, when it embeds one a connection could reach,
 * however it is spelled (hex groups or a dotted tail; `ipv6Groups` reads both):
 * IPv4-mapped (`::ffff:0:0/96`, `::ffff:127.0.0.1`), IPv4-translated (SIIT, `::ffff:0:0:0/96`,
 * `::ffff:0:127.0.0.1`), IPv4-compatible (`::/96`, `::127.0.0.1`), NAT64's well-known prefix
 * (`64:ff9b::/96`) and 6to4 (`2002::/16`, the IPv4 address in the second and third groups).
 * Teredo and the rest of NAT64's space are in FORBIDDEN whole.
 */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  const zeroUpTo = (n: number) => g.slice(0, n).every((group) => group === 0);
  if (zeroUpTo(5) && g[5] === 0xffff) return ipv4FromGroups(g[6], g[7]);
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return ipv4FromGroups(g[6], g[7]);
  if (zeroUpTo(6) && (g[6] !== 0 || g[7] > 1)) return ipv4FromGroups(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((group) => group === 0)) {
    return ipv4FromGroups(g[6], g[7]);
  }
  if (g[0] === 0x2002) return ipv4FromGroups(g[1], g[2]);
  return undefined;
}

/** Whether `address` (an IPv4 or IPv6 literal) is one a receiver may not be at. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return FORBIDDEN.check(address, 'ipv4');
  if (family !== 6) return true;
  const inner = embeddedIpv4(address);
  if (inner !== undefined) return FORBIDDEN.check(inner, 'ipv4');
  return FORBIDDEN.check(address.replace(/%.*$/, ''), 'ipv6');
}

/** A URL's host as an address literal (brackets removed), or undefined for a name. */
export function addressLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : undefined;
}

function refuse(message: string): ApiError {
  return ApiError.invalidUrl(message, [{ field: 'url', message }]);
}

/**
 * An endpoint URL as it is stored: an absolute http(s) URL with a host, no user info, no
 * whitespace or control characters, at most MAX_WEBHOOK_URL_LENGTH characters (normalised by the
 * WHATWG parser), that does not reach this service (`shortBaseUrl`, its SHORT_BASE_URL: the host
 * however spelled, on its port, as link targets are checked): its messages would be posted back
 * to the service. Refused with `invalid_url` otherwise.
 */
export function normalizeWebhookUrl(input: unknown, shortBaseUrl: string): URL {
  if (typeof input !== 'string') throw refuse('url must be an absolute http or https URL');
  const trimmed = input.trim();
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\s\x00-\x1f\x7f]/.test(trimmed)) throw refuse('url must not contain whitespace or control characters');
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw refuse('url must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('url must be an http or https URL');
  if (url.hostname === '') throw refuse('url must have a host');
  if (url.username !== '' || url.password !== '') throw refuse('url must not contain a user name or password');
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) {
    throw refuse(`url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters long`);
  }
  if (pointsAtService(url, new URL(shortBaseUrl))) {
    throw refuse(
      'url points back at this short-link service (the host and port of its short URLs, however spelled): messages would be posted to the service itself',
    );
  }
  return url;
}

/** Resolves a host name to all its addresses (`dns.lookup`, as a connection would). */
export type HostResolver = (hostname: string) => Promise<string[]>;

export const resolveHost: HostResolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses: LookupAddress[]) => {
      if (error) reject(error);
      else resolve(addresses.map((entry) => entry.address));
    });
  });

/**
 * Refuses (`invalid_url`) a URL whose host is, or resolves to, an address a receiver may not be at,
 * or does not resolve at all. The check is made again when each connection is made
 * (`guardedLookup`): a name that resolves elsewhere later (DNS rebinding) is refused then.
 */
export async function checkDestination(url: URL, resolver: HostResolver = resolveHost): Promise<void> {
  const literal = addressLiteral(url.hostname);
  if (literal !== undefined) {
    if (isForbiddenAddress(literal)) throw refuse(FORBIDDEN_MESSAGE);
    return;
  }
  let addresses: string[];
  try {
    addresses = await resolver(url.hostname);
  } catch {
    throw refuse(`The host ${url.hostname} cannot be resolved`);
  }
  if (addresses.length === 0) throw refuse(`The host ${url.hostname} cannot be resolved`);
  if (addresses.some(isForbiddenAddress)) throw refuse(FORBIDDEN_MESSAGE);
}

export const FORBIDDEN_MESSAGE =
  'url must not point at a loopback, private, link-local, unique-local or unspecified address';

/** What `net.connect`'s `lookup` option is called with and must answer. */
type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** The error a refused connection fails with: the attempt's outcome names it. */
export class ForbiddenAddressError extends Error {
  override readonly name = 'ForbiddenAddressError';
  readonly code = 'EFORBIDDENADDRESS';
}

/**
 * A `lookup` for connections to receivers: resolves as `dns.lookup` does and refuses the
 * connection when any address is forbidden, so the address checked is the address connected to
 * (no window for DNS rebinding between a check and the connection).
 */
export function guardedLookup(
  hostname: string,
  options: { all?: boolean; family?: number | string },
  callback: LookupCallback,
): void {
  dnsLookup(hostname, { ...options, all: true, verbatim: true } as { all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find((entry) => isForbiddenAddress(entry.address));
    if (refused) {
      return callback(new ForbiddenAddressError(`${hostname} resolves to ${refused.address}, a forbidden address`), []);
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}
