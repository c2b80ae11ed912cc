import { HttpException, HttpStatus } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { isDatabaseUnavailable } from '../../database/database-unavailable.js';
import { ApiError, errorNameForStatus, type ErrorName, type FieldError } from './api-error.js';

/** An RFC 9457 problem-details body, with shortlink's stable `error` name. */
export interface Problem {
  type: 'about:blank';
  title: string;
  status: number;
  error: ErrorName;
  detail: string;
  errors?: FieldError[];
}

// Fastify's own request errors (raised while reading the body, before Nest sees the request).
const FASTIFY_ERRORS: Record<string, { status: number; error: ErrorName; detail: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, error: 'payload_too_large', detail: 'The request body exceeds 1 MiB' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    error: 'unsupported_media_type',
    detail: 'Send the request body as application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, error: 'invalid_json', detail: 'Invalid Content-Length' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, error: 'invalid_json', detail: 'The JSON request body is empty' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, error: 'invalid_json', detail: 'The request body is not valid JSON' },
  // shortlink's own JSON parser (src/common/http/json-body-parser.ts).
  SL_ERR_JSON_TOO_DEEP: { status: 400, error: 'invalid_json', detail: 'The JSON request body is nested too deeply' },
  SL_ERR_JSON_NOT_UTF8: { status: 400, error: 'invalid_json', detail: 'The JSON request body is not valid UTF-8' },
  // Raised by the router (through the adapter's `frameworkErrors`): a path no route can serve.
  FST_ERR_BAD_URL: { status: 404, error: 'not_found', detail: 'The path is not a valid URL' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 404, error: 'not_found', detail: 'No such resource' },
};

function problem(status: number, error: ErrorName, detail: string, errors?: FieldError[]): Problem {
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    error,
    detail,
    ...(errors?.length ? { errors } : {}),
  };
}

/**
 * Maps anything thrown while serving a request to the problem it is for the client. Unknown
 * errors become a bare 500 with no internals (`isServerFault` tells the caller to log them).
 */
export function toProblem(exception: unknown): Problem & { isServerFault: boolean } {
  if (exception instanceof ApiError) {
    return {
      ...problem(exception.getStatus(), exception.errorName, exception.detail, exception.fieldErrors),
      isServerFault: false,
    };
  }
  // Nest wraps Fastify's own request errors in an HttpException whose cause is the original.
  const fastify = (exception instanceof HttpException ? exception.cause : exception) as
    { code?: string; statusCode?: number; message?: string } | undefined;
  const known = fastify?.code ? FASTIFY_ERRORS[fastify.code] : undefined;
  if (known) return { ...problem(known.status, known.error, known.detail), isServerFault: false };
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    const raw = typeof response === 'string' ? response : (response as { message?: unknown }).message;
    const message = Array.isArray(raw) ? raw.join('; ') : typeof raw === 'string' ? raw : exception.message;
    return { ...problem(status, errorNameForStatus(status), message), isServerFault: status >= 500 };
  }
  if (isDatabaseUnavailable(exception)) {
    return {
      ...problem(HttpStatus.SERVICE_UNAVAILABLE, 'service_unavailable', 'The database is unavailable; retry later'),
      isServerFault: true,
    };
  }
  // Other client errors raised outside Nest's HttpException family.
  if (typeof fastify?.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    return {
      ...problem(fastify.statusCode, errorNameForStatus(fastify.statusCode), fastify.message ?? 'Bad request'),
      isServerFault: false,
    };
  }
  return { ...problem(500, 'internal_error', 'An unexpected error occurred'), isServerFault: true };
}

/** The problem body of an ApiError, e.g. one item's failure inside a bulk answer. */
export function apiErrorProblem(error: ApiError): Problem {
  return problem(error.getStatus(), error.errorName, error.detail, error.fieldErrors);
}
