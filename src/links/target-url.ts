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

/**
 * Checks a target URL and returns the normalised form to store, or throws `invalid_url`.
 *
 * `shortBaseUrl` is the service's own address: a target on that host would redirect to the
 * service itself, possibly in a loop, so it is refused (on either scheme).
 */
export function normalizeTargetUrl(input: unknown, shortBaseUrl: string): string {
  if (typeof input !== 'string') throw ApiError.invalidUrl('url must be a string');
  const trimmed = input.trim();
  if (trimmed === '') throw ApiError.invalidUrl('url must not be empty');
  if (WHITESPACE_OR_CONTROL.test(trimmed)) {
    throw ApiError.invalidUrl('url must not contain whitespace or control characters (encode them)');
  }
  if (LONE_SURROGATE.test(trimmed)) throw ApiError.invalidUrl('url must be valid Unicode text');
  if (!HTTP_PREFIX.test(trimmed)) throw ApiError.invalidUrl('url must be an absolute http:// or https:// URL');

  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    throw ApiError.invalidUrl('url is not a valid URL');
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
    throw ApiError.invalidUrl('url must be an absolute http:// or https:// URL with a host');
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw ApiError.invalidUrl('url must not contain user information (user:password@)');
  }
  if (sameHost(parsed, shortBaseUrl)) {
    throw ApiError.invalidUrl('url must not point at this short-link service itself');
  }
  const normalized = parsed.href;
  if (normalized.length > MAX_TARGET_URL_LENGTH) {
    throw ApiError.invalidUrl(`url must be at most ${MAX_TARGET_URL_LENGTH} characters long`);
  }
  return normalized;
}

// Same host and port, whatever the scheme: http://sl.test usually redirects to https://sl.test,
// so either would loop. The parser drops each scheme's default port (port ""), and a trailing dot
// names the same host ("sl.test." is "sl.test").
function sameHost(target: URL, shortBaseUrl: string): boolean {
  const base = new URL(shortBaseUrl);
  const strip = (host: string) => host.replace(/\.$/, '');
  return strip(target.hostname) === strip(base.hostname) && target.port === base.port;
}
