import { ApiError } from '../common/errors/api-error.js';

/** The longest host name DNS allows (RFC 1035), in its ASCII form. */
export const MAX_HOST_LENGTH = 253;

/** A host name refused, said for the admin typing it (the API, the page, the CLI). */
function badHost(message: string): ApiError {
  return ApiError.validationFailed(message, [{ field: 'host', message }]);
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** Whether a host (as the URL parser writes it) is an IP address rather than a name. */
export function isIpAddress(host: string): boolean {
  return host.startsWith('[') || IPV4.test(host);
}

/**
 * The form a blocked host is stored and compared in: the URL parser's own normalisation of a
 * host (lower case; Unicode names in punycode, so `bücher.example` and `xn--bcher-kva.example`
 * are one host; IPv4 in dotted decimal, IPv6 compressed in brackets), without trailing dots.
 * Refused with a message saying what to give instead: a URL, a port, user info, a path, a
 * wildcard, a single label (`com` would block a whole top-level domain), anything the parser
 * does not take as a host.
 */
export function normalizeBlockedHost(input: unknown): string {
  if (typeof input !== 'string') throw badHost('host must be a string, e.g. "evil.example"');
  const text = input.trim();
  if (text === '') throw badHost('host must not be empty');
  if (text.length > 2 * MAX_HOST_LENGTH) throw badHost(`host must be at most ${MAX_HOST_LENGTH} characters long`);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    const host = URL.canParse(text) ? new URL(text).hostname : '';
    throw badHost(`host must be a host name, not a URL${host ? `: give ${host.replace(/\.+$/, '')}` : ''}`);
  }
  if (text.startsWith('*.')) {
    throw badHost(`host must be a host name without a wildcard: ${text.slice(2)} blocks its subdomains already`);
  }
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\s/?#@\\\u0000-\u001f\u007f]/.test(text)) {
    throw badHost('host must be a host name alone, e.g. "evil.example": no path, spaces or user info');
  }
  // An IPv6 address may come without its brackets.
  const bracketed = text.includes(':') && !text.startsWith('[') && text.split(':').length > 2 ? `[${text}]` : text;
  let parsed: URL;
  try {
    parsed = new URL(`http://${bracketed}/`);
  } catch {
    throw badHost(`host is not a valid host name: ${text}`);
  }
  if (parsed.port !== '' || /:\d*$/.test(bracketed.replace(/^\[.*\]/, ''))) {
    throw badHost(`host must be given without a port: blocking ${parsed.hostname} blocks it on every port`);
  }
  const host = parsed.hostname.replace(/\.+$/, '');
  if (host === '' || host.startsWith('.') || host.includes('..'))
    throw badHost(`host is not a valid host name: ${text}`);
  if (host.length > MAX_HOST_LENGTH) throw badHost(`host must be at most ${MAX_HOST_LENGTH} characters long`);
  if (!isIpAddress(host) && !host.includes('.')) {
    throw badHost(`host must have at least two labels, e.g. "evil.example": "${host}" would block a whole domain`);
  }
  return host;
}

/**
 * The keys a URL's host is blocked by: the host itself and each domain it belongs to
 * (`a.b.example` → `a.b.example`, `b.example`, `example`); an IP address only by itself. The
 * hostname is as the URL parser gives it; a trailing dot is ignored.
 */
export function blockKeys(hostname: string): string[] {
  const host = hostname.replace(/\.+$/, '');
  if (isIpAddress(host)) return [host];
  const labels = host.split('.');
  return labels.map((_, index) => labels.slice(index).join('.'));
}

/** The blocked host that `url`'s host is or belongs to, or null: `blocked` holds normalised hosts. */
export function blockerOf(url: string, blocked: ReadonlySet<string>): string | null {
  if (blocked.size === 0) return null;
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return null;
  }
  for (const key of blockKeys(hostname)) if (blocked.has(key)) return key;
  return null;
}
