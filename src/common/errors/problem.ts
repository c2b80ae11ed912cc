import { HttpException, HttpStatus } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
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

// Prisma error codes that say the database cannot be reached right now (retry later, not a bug).
const UNAVAILABLE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

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

/** node-postgres' connection failures, which carry no code (pg/lib/client.js, pg-pool). */
const PG_CONNECTION_FAILURE =
  /^(Connection terminated( unexpectedly| due to connection timeout)?|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable)$/;

type DriverFailure = { kind?: string; code?: string; message?: string };

function isDatabaseUnavailable(exception: unknown): boolean {
  const candidate = exception as {
    name?: string;
    code?: unknown;
    message?: unknown;
    cause?: DriverFailure;
    meta?: { driverAdapterError?: { cause?: DriverFailure } };
  };
  if (candidate?.name === 'PrismaClientInitializationError') return true;
  if (typeof candidate?.code === 'string' && UNAVAILABLE_CODES.has(candidate.code)) return true;
  // Driver adapters report lost connections as DriverAdapterError with a `cause.kind`; the Prisma
  // client wraps that in a known-request error (P2010, P2039…) carrying it as meta.driverAdapterError.
  // The redirect lookup (redirect-lookup.ts) uses the drivers directly: their errors come as they
  // are, with the socket error or SQLSTATE as `code`, or (pg's own connection failures) a message.
  if (typeof candidate?.message === 'string' && PG_CONNECTION_FAILURE.test(candidate.message)) return true;
  return [candidate as DriverFailure, candidate?.cause, candidate?.meta?.driverAdapterError?.cause].some((cause) => {
    const kind = cause?.kind ?? '';
    const code = cause?.code ?? '';
    return (
      /DatabaseNotReachable|DatabaseDoesNotExist|DatabaseAccessDenied|ConnectionClosed|SocketTimeout|TooManyConnections/.test(
        kind,
      ) ||
      // 57P0x: server shutting down or connection terminated; 08xxx: connection exceptions;
      // 55000 here: the database refuses connections (ALLOW_CONNECTIONS false, maintenance).
      // 3D000: the database does not exist (yet, or any more); SQLITE_BUSY: locked past the timeout.
      /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|57P0[1-3]|08\d{3}|3D000|SQLITE_BUSY)$/.test(code) ||
      (code === '55000' && /not currently accepting connections/.test(cause?.message ?? ''))
    );
  });
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
