import { HttpException, HttpStatus } from '@nestjs/common';

/** Stable machine names of every error the API answers with (the `error` member). */
export const ERROR_NAMES = [
  'invalid_url',
  'invalid_code',
  'validation_failed',
  'invalid_json',
  'unauthorized',
  'forbidden',
  'not_found',
  'code_taken',
  'link_expired',
  'idempotency_key_in_use',
  'idempotency_key_reused',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal_error',
  'service_unavailable',
] as const;
export type ErrorName = (typeof ERROR_NAMES)[number];

export interface FieldError {
  field: string;
  message: string;
}

/**
 * A domain error with a stable name. Services throw these; the problem-details filter turns
 * them into RFC 9457 bodies (and the plain-text endpoint into `error: <name>`).
 */
export class ApiError extends HttpException {
  constructor(
    status: HttpStatus,
    readonly errorName: ErrorName,
    readonly detail: string,
    readonly fieldErrors?: FieldError[],
  ) {
    super(detail, status);
  }

  static invalidUrl(detail = 'url must be an absolute http or https URL', fieldErrors?: FieldError[]) {
    return new ApiError(HttpStatus.BAD_REQUEST, 'invalid_url', detail, fieldErrors);
  }
  static invalidCode(detail: string, fieldErrors?: FieldError[]) {
    return new ApiError(HttpStatus.BAD_REQUEST, 'invalid_code', detail, fieldErrors);
  }
  /** Input a service refused, with a message per field (for forms and the CLI as well as the API). */
  static validationFailed(detail: string, fieldErrors: FieldError[]) {
    return new ApiError(HttpStatus.BAD_REQUEST, 'validation_failed', detail, fieldErrors);
  }
  static unauthorized(detail = 'A valid API token is required') {
    return new ApiError(HttpStatus.UNAUTHORIZED, 'unauthorized', detail);
  }
  static forbidden(detail = 'The API token lacks the scope this operation needs') {
    return new ApiError(HttpStatus.FORBIDDEN, 'forbidden', detail);
  }
  static notFound(detail = 'No such short link') {
    return new ApiError(HttpStatus.NOT_FOUND, 'not_found', detail);
  }
  static linkExpired(detail = 'This short link has expired') {
    return new ApiError(HttpStatus.GONE, 'link_expired', detail);
  }
  static codeTaken(code: string) {
    return new ApiError(HttpStatus.CONFLICT, 'code_taken', `The code "${code}" is already taken`);
  }
}

/** The error name used for a status when nothing more specific is known. */
export function errorNameForStatus(status: number): ErrorName {
  switch (status) {
    case 400:
      return 'validation_failed';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 409:
      return 'code_taken';
    case 410:
      return 'link_expired';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 429:
      return 'rate_limited';
    case 503:
      return 'service_unavailable';
    default:
      return status < 500 ? 'validation_failed' : 'internal_error';
  }
}
