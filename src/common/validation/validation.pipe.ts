import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError, type FieldError } from '../errors/api-error.js';

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/**
 * The global ValidationPipe: unknown fields are refused, and failures become problem details
 * whose `error` names the kind of mistake (a bad `url` → invalid_url, a bad `custom_code` →
 * invalid_code, anything else → validation_failed).
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    // Only the DTO's own declared types are used, so "limit=abc" cannot become NaN silently.
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: validationProblem,
  });
}

/** The validation options of `createValidationPipe`, for checking objects the pipe does not see. */
export const VALIDATION_OPTIONS = { whitelist: true, forbidNonWhitelisted: true } as const;

/**
 * class-validator's failures as one `ApiError`, named after the kind of mistake: a bad `url`
 * alone → invalid_url, a bad `custom_code` alone → invalid_code, anything else → validation_failed.
 * `prefix` names where the object sits in the body (e.g. `links[3]`).
 */
export function validationProblem(errors: ValidationError[], prefix = ''): ApiError {
  const fieldErrors = flatten(errors, prefix);
  if (fieldErrors.length === 0) {
    return new ApiError(400, 'validation_failed', 'The request body must be a JSON object');
  }
  const detail = fieldErrors.map((e) => e.message).join('; ');
  const unknown = errors.some((e) => e.constraints?.whitelistValidation);
  const only = (field: string) => !unknown && errors.every((e) => e.property === field);
  if (only('url')) return ApiError.invalidUrl(detail, fieldErrors);
  if (only('custom_code')) return ApiError.invalidCode(detail, fieldErrors);
  return new ApiError(400, 'validation_failed', detail, fieldErrors);
}
