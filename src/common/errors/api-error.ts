import { HttpException, HttpStatus } from '@nestjs/common';

/**
 * Stable machine names of every domain error (the problem's `error` member). The API answers
 * with them; `account_exists`, `passkey_refused` and `sso_unavailable` come only from services
 * the pages and the CLI call, and are listed so that one catalogue names every refusal.
 */
export const ERROR_NAMES = [
  'invalid_url',
  'invalid_code',
  'validation_failed',
  'invalid_json',
  'unauthorized',
  'forbidden',
  'not_found',
  'blocked_url',
  'account_disabled',
  'email_unverified',
  'code_taken',
  'admin_conflict',
  'too_many_webhooks',
  'webhook_disabled',
  'link_expired',
  'password_required',
  'idempotency_key_in_use',
  'idempotency_key_reused',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal_error',
  'service_unavailable',
  'account_exists',
  'passkey_refused',
  'sso_unavailable',
] as const;
export type ErrorName = (typeof ERROR_NAMES)[number];

export interface FieldError {
  field: string;
  message: string;
}

/**
 * A domain error with a stable name: the one family of errors services throw to their callers
 * for anything a client, a person on a page or a CLI user can act on (input refused, nothing
 * found, a conflict, sign-in refused, a provider down). Each caller maps it in one place: the
 * problem-details filter into RFC 9457 bodies (and the plain-text endpoint into `error: <name>`),
 * the page error filter into an error page (forms show it next to their fields: `formErrors`),
 * the CLI into one `shortlink: <detail>` line. `detail` and the field messages are written for
 * people; callers branch on `errorName`, never on the text.
 *
 * Not in the family: the installation's and the process's faults, which no service throws to a
 * client (ConfigError, MigrationError, the SQLite writer's errors, BackupError, ImportFileError,
 * CliError); errors raised below Nest, mapped by their code like Fastify's own (the JSON body
 * parser's); and the guard's page-only outcomes (page-access.errors.ts).
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
  static webhookNotFound() {
    return new ApiError(HttpStatus.NOT_FOUND, 'not_found', 'No such webhook');
  }
  static tooManyWebhooks(max: number) {
    return new ApiError(HttpStatus.CONFLICT, 'too_many_webhooks', `An account can have at most ${max} webhooks`);
  }
  static webhookDisabled() {
    return new ApiError(
      HttpStatus.CONFLICT,
      'webhook_disabled',
      'This webhook was disabled after 5 days without a delivery; delete it and add it again',
    );
  }
  static linkExpired(detail = 'This short link has expired') {
    return new ApiError(HttpStatus.GONE, 'link_expired', detail);
  }
  /** The target's host (or a parent domain of it) is blocked on this instance. */
  static blockedUrl(host: string, field = 'url') {
    const message = `${field} points at a blocked host (${host}): links to it are not allowed on this service`;
    return new ApiError(HttpStatus.BAD_REQUEST, 'blocked_url', message, [{ field, message }]);
  }
  /** The account behind the token (or the session) was disabled by an admin. */
  static accountDisabled(detail = 'This account has been disabled by an administrator of this service') {
    return new ApiError(HttpStatus.FORBIDDEN, 'account_disabled', detail);
  }
  /** The account's email is not proved yet (SIGNUP=verify): it creates no links or tokens until it is. */
  static emailUnverified() {
    return new ApiError(
      HttpStatus.FORBIDDEN,
      'email_unverified',
      'Confirm your email first: open the link sent to it (the dashboard can send it again)',
    );
  }
  /**
   * An admin action that would leave the instance in a state nobody can undo or that another
   * rule holds (the last admin, the admin's own account, a link kept disabled by a blocked host).
   */
  static adminConflict(detail: string) {
    return new ApiError(HttpStatus.CONFLICT, 'admin_conflict', detail);
  }
  /** A HEAD of a password-protected link: only a person with the password gets its target. */
  static passwordRequired() {
    return new ApiError(HttpStatus.UNAUTHORIZED, 'password_required', 'This short link is protected by a password');
  }
  static codeTaken(code: string) {
    return new ApiError(HttpStatus.CONFLICT, 'code_taken', `The code "${code}" is already taken`);
  }
  /** The e-mail address has an account already (compared case-insensitively). */
  static accountExists(email: string) {
    return new ApiError(HttpStatus.CONFLICT, 'account_exists', `An account for ${email} already exists`, [
      { field: 'email', message: 'email is already registered' },
    ]);
  }
  /** A passkey refused: 400 when adding one, 401 when it was to sign someone in. */
  static passkeyRefused(
    detail: string,
    status: HttpStatus.BAD_REQUEST | HttpStatus.UNAUTHORIZED = HttpStatus.BAD_REQUEST,
  ) {
    return new ApiError(status, 'passkey_refused', detail);
  }
  /** Single sign-on cannot be used: 404 when it is not set up here, 503 when its provider cannot be reached. */
  static ssoUnavailable(detail: string, status: HttpStatus.NOT_FOUND | HttpStatus.SERVICE_UNAVAILABLE) {
    return new ApiError(status, 'sso_unavailable', detail);
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
