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
    exceptionFactory: (errors: ValidationError[]) => {
      const fieldErrors = flatten(errors);
      if (fieldErrors.length === 0) {
        return new ApiError(400, 'validation_failed', 'The request body must be a JSON object');
      }
      const detail = fieldErrors.map((e) => e.message).join('; ');
      const unknown = errors.some((e) => e.constraints?.whitelistValidation);
      if (!unknown && fieldErrors.every((e) => e.field === 'url')) return ApiError.invalidUrl(detail, fieldErrors);
      if (!unknown && fieldErrors.every((e) => e.field === 'custom_code')) return ApiError.invalidCode(detail, fieldErrors);
      return new ApiError(400, 'validation_failed', detail, fieldErrors);
    },
  });
}
