import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath, type ExampleObject, type HeadersObject } from '@nestjs/swagger';
import { STATUS_CODES } from 'node:http';
import type { ErrorName } from './api-error.js';
import { ProblemDto } from './problem.dto.js';

/** When each error is answered, and a typical `detail`: one catalogue for every operation. */
const CATALOGUE: Record<ErrorName, { status: number; when: string; detail: string }> = {
  invalid_url: {
    status: 400,
    when: "`url` is missing, not an absolute http(s) URL, has user info, whitespace or control characters, is longer than 8192 characters (a webhook's: 2048), or points at this service (a webhook's too, or at a loopback, private, link-local, unique-local or unspecified address, or a host that does not resolve)",
    detail: 'url must be an absolute http or https URL',
  },
  invalid_code: {
    status: 400,
    when: '`custom_code` is empty, not 3 to 64 characters from `[A-Za-z0-9_-]`, or a reserved name',
    detail: 'custom_code must be 3 to 64 characters from A-Z, a-z, 0-9, "_" and "-"',
  },
  validation_failed: {
    status: 400,
    when: 'an unknown field, or a value of the wrong type or out of range',
    detail: 'property foo should not exist',
  },
  invalid_json: { status: 400, when: 'the body is not valid JSON', detail: 'The request body is not valid JSON' },
  unauthorized: {
    status: 401,
    when: 'no token where one is required, or a malformed, invalid or revoked token',
    detail: 'The API token is invalid or revoked',
  },
  forbidden: {
    status: 403,
    when: 'the token lacks the scope the operation needs',
    detail: 'The API token lacks the scope links:write',
  },
  not_found: {
    status: 404,
    when: "no such link (the code is unknown or deleted, or belongs to another account or to no account) or webhook (unknown, deleted or another account's)",
    detail: 'No such short link',
  },
  blocked_url: {
    status: 400,
    when: "the target's host, or a domain it is part of, is blocked by the administrators of this service",
    detail: 'url points at a blocked host (evil.example): links to it are not allowed on this service',
  },
  account_disabled: {
    status: 403,
    when: "the token's account was disabled by an administrator",
    detail: 'This account has been disabled by an administrator of this service',
  },
  email_unverified: {
    status: 403,
    when: "the token's account signed up under SIGNUP=verify and has not opened the link sent to its email yet",
    detail: 'Confirm your email first: open the link sent to it (the dashboard can send it again)',
  },
  admin_conflict: {
    status: 409,
    when: "the action would disable, delete or demote the last admin or the caller's own account, or enable a link that a blocked host or a disabled account keeps disabled",
    detail: 'This link stays disabled while its host evil.example is blocked',
  },
  code_taken: {
    status: 409,
    when: '`custom_code` is already in use',
    detail: 'The code "spring-sale" is already taken',
  },
  too_many_webhooks: {
    status: 409,
    when: 'the account has 10 webhooks already',
    detail: 'An account can have at most 10 webhooks',
  },
  webhook_disabled: {
    status: 409,
    when: 'the webhook was disabled after 5 days without a delivery',
    detail: 'This webhook was disabled after 5 days without a delivery; delete it and add it again',
  },
  link_expired: {
    status: 410,
    when: 'the link is past its `expires_at`',
    detail: 'This short link has expired',
  },
  password_required: {
    status: 401,
    when: 'the link is password-protected (HEAD; a GET answers the password form)',
    detail: 'This short link is protected by a password',
  },
  idempotency_key_in_use: {
    status: 409,
    when: 'a call with this `Idempotency-Key` is still running; retry when it has finished',
    detail: 'A request with this Idempotency-Key is still being processed',
  },
  idempotency_key_reused: {
    status: 422,
    when: 'this `Idempotency-Key` was used in the last 24 hours with a different request body',
    detail: 'This Idempotency-Key was already used with a different request',
  },
  payload_too_large: {
    status: 413,
    when: 'the body exceeds the limit: 1 MiB (10 MiB for `POST /api/links/bulk`); see "Request bodies"',
    detail: 'The request body exceeds 1 MiB',
  },
  unsupported_media_type: {
    status: 415,
    when: 'the body is not sent as `application/json`',
    detail: 'Send the request body as application/json',
  },
  rate_limited: {
    status: 429,
    when: 'too many requests in the current window; retry after `Retry-After` seconds',
    detail: 'Too many requests; retry in 42 seconds',
  },
  internal_error: { status: 500, when: 'an unexpected server fault', detail: 'An unexpected error occurred' },
  service_unavailable: {
    status: 503,
    when: 'the database is unreachable; retry later',
    detail: 'The database is unavailable; retry later',
  }, // Refusals of the services behind the dashboard and the CLI; no API operation answers them yet.
  account_exists: {
    status: 409,
    when: 'an account with this e-mail address exists (addresses are compared case-insensitively)',
    detail: 'An account for owner@example.com already exists',
  },
  passkey_refused: {
    status: 400,
    when: 'a passkey could not be added or did not sign in (401 then); the detail says why',
    detail: 'An account can have at most 20 passkeys.',
  },
  sso_unavailable: {
    status: 503,
    when: 'single sign-on cannot be used: its provider cannot be reached (404 when it is not set up)',
    detail: 'Example ID cannot be reached right now. Try again later.',
  },
};

const integerHeader = (description: string, example: number) => ({ description, schema: { type: 'integer', example } });

/** Headers that come with some statuses, whatever the operation. */
const HEADERS: Partial<Record<number, HeadersObject>> = {
  401: { 'WWW-Authenticate': { description: 'Always `Bearer`', schema: { type: 'string', example: 'Bearer' } } },
  429: {
    'Retry-After': integerHeader('Seconds until the window resets and requests are accepted again', 42),
    'X-RateLimit-Limit': integerHeader('Requests allowed per window', 60),
    'X-RateLimit-Remaining': integerHeader('Requests left in the current window', 0),
    'X-RateLimit-Reset': integerHeader('Seconds until the window resets', 42),
  },
};

function byStatus(names: ErrorName[]): Map<number, ErrorName[]> {
  const groups = new Map<number, ErrorName[]>();
  for (const name of names) {
    const { status } = CATALOGUE[name];
    groups.set(status, [...(groups.get(status) ?? []), name]);
  }
  return groups;
}

function describe(status: number, names: ErrorName[]): string {
  const reasons = names.map((name) => `\`${name}\`: ${CATALOGUE[name].when}`);
  return `${STATUS_CODES[status]}. ${reasons.join('; ')}.`;
}

function problemExample(name: ErrorName): ExampleObject {
  const { status, detail } = CATALOGUE[name];
  const fieldErrors =
    name === 'invalid_url' || name === 'invalid_code' || name === 'validation_failed'
      ? {
          errors: [
            {
              field: name === 'invalid_code' ? 'custom_code' : name === 'invalid_url' ? 'url' : 'foo',
              message: detail,
            },
          ],
        }
      : {};
  return {
    summary: name,
    value: { type: 'about:blank', title: STATUS_CODES[status], status, error: name, detail, ...fieldErrors },
  };
}

/** One documented response per status, in `mediaType`, with an example per error name. */
function errorResponses(
  names: ErrorName[],
  mediaType: string,
  schema: Record<string, unknown>,
  example: (name: ErrorName) => ExampleObject,
): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...[...byStatus(names)].map(([status, group]) =>
      ApiResponse({
        status,
        description: describe(status, group),
        headers: HEADERS[status],
        content: {
          [mediaType]: { schema, examples: Object.fromEntries(group.map((name) => [name, example(name)])) },
        },
      }),
    ),
  );
}

/**
 * Documents the errors an operation can answer, by their stable names, as RFC 9457 problem
 * details (`application/problem+json`, schema `ProblemDto`), one response per status with an
 * example per name: `@ApiProblemResponses('invalid_url', 'unauthorized', 'rate_limited')`. An
 * operation that names `unauthorized` (it takes a token) also answers `account_disabled`.
 */
export function ApiProblemResponses(...listed: ErrorName[]): MethodDecorator & ClassDecorator {
  // Every operation that takes a token (so may answer 401) answers a disabled account's token 403.
  const names: ErrorName[] =
    listed.includes('unauthorized') && !listed.includes('account_disabled') ? [...listed, 'account_disabled'] : listed;
  return applyDecorators(
    ApiExtraModels(ProblemDto),
    errorResponses(names, 'application/problem+json', { $ref: getSchemaPath(ProblemDto) }, problemExample),
  );
}

/** What every operation that takes a token can answer: the token, its scope, the rate limit, the database. */
const TOKEN_ERRORS: ErrorName[] = ['unauthorized', 'forbidden', 'rate_limited', 'service_unavailable'];
/** And every one that takes a JSON body. */
const BODY_ERRORS: ErrorName[] = ['validation_failed', 'invalid_json', 'payload_too_large', 'unsupported_media_type'];

/**
 * `ApiProblemResponses` for an operation that takes a token: its own errors, then TOKEN_ERRORS.
 * (A status's reasons are described in the order given, so its own come first, as they would.)
 */
export function ApiTokenProblems(...own: ErrorName[]): MethodDecorator & ClassDecorator {
  return ApiProblemResponses(...own, ...TOKEN_ERRORS);
}

/** The same for an operation with a JSON body: its own errors, then BODY_ERRORS and TOKEN_ERRORS. */
export function ApiTokenBodyProblems(...own: ErrorName[]): MethodDecorator & ClassDecorator {
  return ApiProblemResponses(...own, ...BODY_ERRORS, ...TOKEN_ERRORS);
}

/**
 * The same for the plain-text endpoint (`GET /api/s`), whose errors are `error: <name>` bodies
 * in `text/plain`.
 */
export function ApiPlainTextErrorResponses(...names: ErrorName[]): MethodDecorator & ClassDecorator {
  return errorResponses(names, 'text/plain', { type: 'string', pattern: '^error: [a-z_]+$' }, (name) => ({
    summary: name,
    value: `error: ${name}`,
  }));
}
