// The shortlink TypeScript SDK: openapi-fetch typed by sdk/schema.d.ts, which `npm run sdk`
// generates from openapi.json. Every path, parameter, body and response is checked at compile
// time against the API's own description.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };

/** A short link as the API returns it. */
export type Link = components['schemas']['Link'];
/** One page of links: `{ data, total, limit, offset }`. */
export type LinkList = components['schemas']['LinkList'];
/** The body of `POST /api/links`. */
export type CreateLinkRequest = components['schemas']['CreateLinkRequest'];
/** The body of `PUT /api/links/{code}`. */
export type UpdateLinkRequest = components['schemas']['UpdateLinkRequest'];
/** The body of `POST /api/links/bulk`: `{ links: CreateLinkRequest[] }`, 1 to 1000 items. */
export type BulkCreateLinksRequest = components['schemas']['BulkCreateLinksRequest'];
/** One item's outcome in a bulk answer: `{ link }` or `{ error }`. */
export type BulkCreateLinksResult = components['schemas']['BulkCreateLinksResult'];
/** `GET /api/links/{code}/clicks`: all-time, per UTC day and top referrer hosts. */
export type LinkClicks = components['schemas']['LinkClicks'];
/** An RFC 9457 error body; branch on its `error` name. */
export type Problem = components['schemas']['Problem'];
/** The stable error names. */
export type ErrorName = Problem['error'];

export type ShortlinkClient = Client<paths>;

export interface ShortlinkClientOptions extends Omit<ClientOptions, 'baseUrl' | 'headers'> {
  /** Where the service runs, e.g. `http://localhost:3000` (no trailing slash). */
  baseUrl: string;
  /** An API token (`sl_…`). Leave it out for anonymous calls. */
  token?: string;
  /** Which of the two accepted headers carries the token (default `X-API-Key`). */
  tokenHeader?: 'x-api-key' | 'bearer';
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

/**
 * A typed client for the whole API:
 *
 * ```ts
 * const shortlink = createShortlinkClient({ baseUrl: 'http://localhost:3000', token });
 * const { data, error } = await shortlink.POST('/api/links', { body: { url: 'https://example.com/' } });
 * ```
 */
export function createShortlinkClient({
  token,
  tokenHeader = 'x-api-key',
  headers,
  ...options
}: ShortlinkClientOptions): ShortlinkClient {
  const auth: Record<string, string> = {};
  if (token !== undefined) {
    if (tokenHeader === 'bearer') auth.authorization = `Bearer ${token}`;
    else auth['x-api-key'] = token;
  }
  return createClient<paths>({ ...options, headers: { ...auth, ...headers } });
}
