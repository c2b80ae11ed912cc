import type { FastifyInstance } from 'fastify';

/**
 * No request body of this API nests deeper than 2 levels. Deeper JSON is refused before it is
 * parsed: class-transformer and class-validator walk bodies recursively, and thousands of
 * levels would overflow the stack (a 500) instead of failing validation (a 400).
 */
export const MAX_JSON_DEPTH = 32;

/** Thrown for a body nested deeper than MAX_JSON_DEPTH; problem.ts maps its code to 400 invalid_json. */
export class JsonTooDeepError extends Error {
  readonly code = 'SL_ERR_JSON_TOO_DEEP';
  readonly statusCode = 400;
  constructor() {
    super(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
}

/** True when `text` opens more than `limit` arrays or objects inside each other (strings skipped). */
export function jsonNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c /* \ */) i++;
      else if (char === 0x22 /* " */) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x5b /* [ */ || char === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (char === 0x5d /* ] */ || char === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}

/** Thrown for a body that is not valid UTF-8; problem.ts maps its code to 400 invalid_json. */
export class JsonNotUtf8Error extends Error {
  readonly code = 'SL_ERR_JSON_NOT_UTF8';
  readonly statusCode = 400;
  constructor() {
    super('The JSON body is not valid UTF-8');
  }
}

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

// Fatal: invalid bytes are refused instead of silently becoming U+FFFD (and then part of a URL).
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Replaces Fastify's JSON parser with the same parser (prototype-poisoning keys refused) behind
 * a strict UTF-8 decode and a nesting-depth check. The body limit stays Fastify's `bodyLimit`.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    // Many HTTP clients and generated SDKs send `Content-Type: application/json` on every call,
    // bodiless ones included. Where the method carries no body (a DELETE), an empty body is no
    // body; where it does (POST, PUT, PATCH), an empty one is still refused as invalid JSON.
    if ((body as Buffer).length === 0 && !METHODS_WITH_BODY.has(request.method)) {
      done(null, undefined);
      return;
    }
    let text: string;
    try {
      text = UTF8.decode(body as Buffer);
    } catch {
      done(new JsonNotUtf8Error(), undefined);
      return;
    }
    if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(new JsonTooDeepError(), undefined);
      return;
    }
    void parseJson(request, text, done);
  });
}
