import { REQUEST_ID_HEADER } from '../logging/request-id.js';

/** The request headers a redirect reads: the first value of each. */
export interface RedirectRequestHeaders {
  referer?: string;
  userAgent?: string;
  /** Read (as the client's address) only with TRUST_PROXY. */
  forwardedFor?: string;
  requestId?: string;
}

/**
 * The headers a redirect reads, in one pass over Node's `rawHeaders` (name, value, name, …), rather
 * than `request.headers`, which Node builds as an object on first use. Names are compared by
 * length first: most headers are skipped without lower-casing them.
 */
export function redirectHeadersOf(rawHeaders: readonly string[]): RedirectRequestHeaders {
  const found: RedirectRequestHeaders = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const key = rawHeaders[i];
    switch (key.length) {
      case 7:
        if (found.referer === undefined && key.toLowerCase() === 'referer') found.referer = rawHeaders[i + 1];
        break;
      case 10:
        if (found.userAgent === undefined && key.toLowerCase() === 'user-agent') found.userAgent = rawHeaders[i + 1];
        break;
      case 15:
        if (found.forwardedFor === undefined && key.toLowerCase() === 'x-forwarded-for')
          found.forwardedFor = rawHeaders[i + 1];
        break;
      case REQUEST_ID_HEADER.length:
        if (found.requestId === undefined && key.toLowerCase() === REQUEST_ID_HEADER)
          found.requestId = rawHeaders[i + 1];
        break;
    }
  }
  return found;
}
