import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { ClickCounter } from '../clicks/click-counter.js';
import { LinkCache, type LinkRules } from '../links/link-cache.js';
import { couldBeCode } from '../links/short-code.js';
import { requestIdOf } from '../logging/request-id.js';
import { ServiceCounters } from '../metrics/service-counters.js';
import type { RedirectRequestHeaders } from './redirect-request-headers.js';
import { RedirectLookup } from './redirect-lookup.js';

/** What `resolve` answers for a link past its `expires_at`. */
export const LINK_EXPIRED = Symbol('link expired');

/** A live link as a redirect needs it: its target, and its rules if it has any. */
export interface ResolvedLink {
  target: string;
  rules: LinkRules | undefined;
}

/**
 * The hot path: code → target, from the per-instance cache when possible, and the answer. Used by
 * both ways a redirect is served (`RedirectFastPath` for cached codes, `RedirectController` for
 * the rest), so they look links up, count clicks and answer exactly alike.
 */
@Injectable()
export class RedirectService {
  constructor(
    private readonly cache: LinkCache,
    // One primary-key read for every redirect the cache misses, through the driver with a
    // prepared statement: the same query through Prisma costs many times more CPU.
    private readonly lookup: RedirectLookup,
    private readonly clicks: ClickCounter,
    private readonly counters: ServiceCounters,
  ) {}

  /**
   * The target and rules of `code`; null when no such link exists; `LINK_EXPIRED` past its
   * `expires_at`.
   */
  async resolve(code: string): Promise<ResolvedLink | null | typeof LINK_EXPIRED> {
    if (!couldBeCode(code)) return null;
    let link: (ResolvedLink & { linkExpiresAt: number }) | undefined = this.cache.entry(code);
    if (link === undefined) {
      this.counters.cacheMisses++;
      const generation = this.cache.generation();
      const found = await this.lookup.findTarget(code);
      if (found === null) return null;
      // Expired links are cached too, so answering their 410 costs no database read either.
      this.cache.setIfUnchanged(code, found.url, generation, found.expiresAt, found.rules);
      link = { target: found.url, linkExpiresAt: found.expiresAt, rules: found.rules };
    } else {
      this.counters.cacheHits++;
    }
    return link.linkExpiresAt > Date.now() ? link : LINK_EXPIRED;
  }

  /**
   * The target of `code` if this instance has it cached and it has not expired: synchronous, no
   * database. Only codes read from the database are ever cached, so a hit needs no `couldBeCode` check.
   */
  cachedTarget(code: string): string | undefined {
    return this.cache.get(code);
  }

  /**
   * Answers a found link: 302 to its target. A GET (or the POST of a link's password) counts as a
   * visit, with what the counter labels it by (`ClickCounter.record`: the `User-Agent`, the
   * client's address, the host of the `Referer`; in memory, only labels are written to the
   * database, in batches); a HEAD does not, as link checkers and previewers use it, not visitors.
   */
  sendRedirect(request: FastifyRequest, reply: FastifyReply, code: string, target: string): void {
    if (request.method !== 'HEAD') {
      const { headers } = request;
      const forwardedFor = headers['x-forwarded-for'];
      this.clicks.record(
        code,
        headers.referer,
        headers['user-agent'],
        Array.isArray(forwardedFor) ? forwardedFor[0] : forwardedFor,
        request.raw.socket.remoteAddress,
      );
    }
    void reply.code(302).headers(redirectHeaders(target)).send();
  }

  /**
   * The same answer written straight to Node's response, for `RedirectFastPath`. Returns false,
   * having sent and counted nothing, if Node refuses the target as a header value (stored
   * targets are normalised URLs, so that does not happen; if it did, Fastify's path reports it).
   */
  writeRedirect(
    method: string,
    code: string,
    target: string,
    headers: RedirectRequestHeaders,
    socket: { readonly remoteAddress?: string },
    response: ServerResponse,
  ): boolean {
    const requestId = requestIdOf(headers.requestId);
    try {
      // The same headers as `redirectHeaders` and the request's id (which Fastify's hook adds on
      // the other path), plus content-length as Fastify sets it for an empty body (none on
      // HEAD). As a flat array of names and values: Node writes it with indexed loads instead of
      // enumerating an object's keys (1 % fewer instructions a redirect, docs/performance.md).
      response.writeHead(
        302,
        method === 'HEAD'
          ? ['location', target, 'cache-control', CACHE_CONTROL, 'x-request-id', requestId]
          : ['location', target, 'cache-control', CACHE_CONTROL, 'x-request-id', requestId, 'content-length', '0'],
      );
    } catch {
      return false;
    }
    response.end();
    if (method === 'GET') {
      this.clicks.record(code, headers.referer, headers.userAgent, headers.forwardedFor, socket.remoteAddress);
      this.counters.fastRedirectsGet++;
    } else {
      this.counters.fastRedirectsHead++;
    }
    return true;
  }
}

/** Every visit must reach us to be counted, and a changed target must apply at once. */
const CACHE_CONTROL = 'private, no-store';

function redirectHeaders(target: string): Record<string, string> {
  return { location: target, 'cache-control': CACHE_CONTROL };
}
