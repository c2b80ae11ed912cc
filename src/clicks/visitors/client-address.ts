import { isIP } from 'node:net';

/**
 * Longer than any address could be written here: a full IPv6 address with an embedded IPv4 (45
 * characters), brackets and a port (8), and a short zone.
 */
const MAX_ADDRESS_LENGTH = 64;
/** Of an `X-Forwarded-For` header, only this much is read: its first entry is all that counts. */
export const MAX_FORWARDED_FOR_LENGTH = 100;

const BRACKETED = /^\[([^\]]*)\](?::(\d{1,5}))?$/;
const IPV4_WITH_PORT = /^([\d.]+):\d{1,5}$/;
/** How WHATWG URL serialises an IPv4-mapped IPv6 address (`::ffff:1.2.3.4` → `::ffff:102:304`). */
const IPV4_MAPPED = /^::ffff:([\da-f]{1,4}):([\da-f]{1,4})$/;

/**
 * The IP address written in `text`, or undefined when there is none: IPv4 in dotted form, IPv6 in
 * its canonical form (RFC 5952, lower case, shortest), an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`,
 * how Node gives IPv4 clients of a dual-stack socket) as the IPv4 address it maps.
 *
 * Takes what sockets and proxies write: a bare address, `[IPv6]`, `[IPv6]:port`, `IPv4:port` and
 * an IPv6 zone (`fe80::1%eth0`, dropped). A bare IPv6 address never has a port: `2001:db8::1:443`
 * is an address of its own.
 */
export function parseAddress(text: string | undefined): string | undefined {
  if (typeof text !== 'string' || text.length > MAX_ADDRESS_LENGTH) return undefined;
  let host = text.trim();
  const bracketed = BRACKETED.exec(host);
  if (bracketed) {
    host = bracketed[1];
    if (!host.includes(':')) return undefined;
  } else {
    const withPort = IPV4_WITH_PORT.exec(host);
    if (withPort) host = withPort[1];
  }
  const zone = host.indexOf('%');
  if (zone !== -1 && host.includes(':')) host = host.slice(0, zone);
  switch (isIP(host)) {
    case 4:
      return host;
    case 6:
      return canonicalIpv6(host);
    default:
      return undefined;
  }
}

function canonicalIpv6(address: string): string | undefined {
  let canonical: string;
  try {
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const mapped = IPV4_MAPPED.exec(canonical);
  if (!mapped) return canonical;
  const high = parseInt(mapped[1], 16);
  const low = parseInt(mapped[2], 16);
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/**
 * The client's address, to look its country up: with a proxy in front (`TRUST_PROXY`), the first
 * `X-Forwarded-For` entry, as the contract says (the proxy appends what it saw; the first entry is
 * the original client as far as anyone said); otherwise, or when that entry is no address, the
 * socket's. Only the first {@link MAX_FORWARDED_FOR_LENGTH} characters of the header are read, so
 * a header of any size costs the same; garbage gives the socket's address or undefined, never an
 * error.
 */
export function clientAddress(
  forwardedFor: string | string[] | undefined,
  remoteAddress: string | undefined,
  trustProxy: boolean,
): string | undefined {
  if (trustProxy) {
    // Node joins repeated X-Forwarded-For headers with ", "; a framework may give a list instead.
    const header = Array.isArray(forwardedFor) ? forwardedFor[0] : forwardedFor;
    if (typeof header === 'string') {
      const start = header.slice(0, MAX_FORWARDED_FOR_LENGTH);
      const comma = start.indexOf(',');
      // No comma in what was read of a longer header: the first entry is cut short, so it is no address.
      if (comma !== -1 || header.length <= MAX_FORWARDED_FOR_LENGTH) {
        const first = parseAddress(comma === -1 ? start : start.slice(0, comma));
        if (first !== undefined) return first;
      }
    }
  }
  return parseAddress(remoteAddress);
}
