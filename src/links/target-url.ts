import { ApiError } from '../common/errors/api-error.js';

/** Longest stored target, measured on the normalised form (what is stored and redirected to). */
export const MAX_TARGET_URL_LENGTH = 8192;

// After trimming, any whitespace or control character left inside is refused: the WHATWG parser
// would silently drop tabs and newlines, so the stored URL would differ from what was sent.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f-\u009f]/u;
// The scheme must be spelled out with "//": "http:example.com" or "https:\\host" parse, but
// only by the parser's error recovery.
const HTTP_PREFIX = /^https?:\/\//i;
// With the u flag this matches only unpaired surrogates, which the parser would turn into U+FFFD.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** The fields that hold a target: the link's, and its device targets. */
export type TargetField = 'url' | 'ios_url' | 'android_url';

/**
 * `invalid_url` for `field`. A device target's names its field (the API's `errors`, the
 * dashboard's message next to it); the main URL's keeps the shape it always had.
 */
function refusal(field: TargetField, problem: string): ApiError {
  const message = `${field} ${problem}`;
  return field === 'url' ? ApiError.invalidUrl(message) : ApiError.invalidUrl(message, [{ field, message }]);
}

/**
 * Checks a target URL and returns the normalised form to store, or throws `invalid_url` (the
 * messages name `field`: `url`, or a device target).
 *
 * `shortBaseUrl` is the service's own address: a target that reaches it (`pointsAtService`)
 * would redirect to the service itself, in a loop that counts a click at every hop.
 */
export function normalizeTargetUrl(input: unknown, shortBaseUrl: string, field: TargetField = 'url'): string {
  const refuse = (problem: string) => refusal(field, problem);
  if (typeof input !== 'string') throw refuse('must be a string');
  const trimmed = input.trim();
  if (trimmed === '') throw refuse('must not be empty');
  if (WHITESPACE_OR_CONTROL.test(trimmed)) {
    throw refuse('must not contain whitespace or control characters (encode them)');
  }
  if (LONE_SURROGATE.test(trimmed)) throw refuse('must be valid Unicode text');
  if (!HTTP_PREFIX.test(trimmed)) throw refuse('must be an absolute http:// or https:// URL');

  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    throw refuse('is not a valid URL');
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
    throw refuse('must be an absolute http:// or https:// URL with a host');
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw refuse('must not contain user information (user:password@)');
  }
  if (pointsAtService(parsed, new URL(shortBaseUrl))) {
    throw refuse(
      'points back at this short-link service (the host and port of its short URLs, however spelled): a link there would redirect to itself',
    );
  }
  const normalized = parsed.href;
  if (normalized.length > MAX_TARGET_URL_LENGTH) {
    throw refuse(`must be at most ${MAX_TARGET_URL_LENGTH} characters long`);
  }
  return normalized;
}

/**
 * Whether `target` reaches the service at `base` (its `SHORT_BASE_URL`): the same host, however
 * it is spelled, on the same port.
 *
 * The host is compared after the WHATWG parser's own normalisation (case, IDNA, IPv4 in decimal,
 * hex or short forms, IPv6 compression), with trailing dots dropped ("sl.test." is "sl.test"),
 * IPv4-mapped IPv6 read as IPv4, and every loopback name standing for the others (`hostKey`).
 * Only names are compared: a public name that resolves to the service's address is not caught
 * (that would need DNS at every creation, and DNS can change after it).
 *
 * The port is the effective one (`http:` without a port is 80, `https:` 443), whatever the
 * scheme: a request in the other scheme to the same port still lands on the service's socket.
 * And the two default ports count as the same port: in front of the service, http:// is usually
 * redirected to https:// on the same host (or the other way), so `http://sl.test/x` reaches
 * `https://sl.test` all the same. Any other port is another service and is allowed.
 */
export function pointsAtService(target: URL, base: URL): boolean {
  if (hostKey(target.hostname) !== hostKey(base.hostname)) return false;
  if (target.port === '' && base.port === '') return true;
  return effectivePort(target) === effectivePort(base);
}

function effectivePort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** The parser writes `[::ffff:127.0.0.1]` as `[::ffff:7f00:1]`. */
const IPV4_MAPPED = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/;
const LOOPBACK_IPV4 = /^127\.\d+\.\d+\.\d+$/;
/**
 * Names of the machine itself. `*.localhost` resolves to loopback in browsers (RFC 6761);
 * `0.0.0.0` and `[::]` connect to the local host on Linux and macOS.
 */
const LOOPBACK_NAMES = new Set(['localhost', '[::1]', '0.0.0.0', '[::]']);

/** One key per host, whatever its spelling (`hostname` as the WHATWG parser gives it). */
function hostKey(hostname: string): string {
  let host = hostname.replace(/\.+$/, '');
  const mapped = IPV4_MAPPED.exec(host);
  if (mapped) {
    const [high, low] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
    host = [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  if (LOOPBACK_NAMES.has(host) || host.endsWith('.localhost') || LOOPBACK_IPV4.test(host)) return 'loopback';
  return host;
}
