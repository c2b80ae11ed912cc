import { ApiError } from '../common/errors/api-error.js';

/**
 * RFC 3339 date-time (the ISO 8601 profile JSON APIs use) with a mandatory zone: `Z` or an
 * offset. Without a zone the instant would depend on the server's time zone, so it is refused.
 */
const DATE_TIME_WITH_ZONE =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

const FORMAT_HINT = 'an ISO 8601 date-time with a time zone, e.g. "2026-12-31T23:59:59Z"';

function invalid(message: string, field: string): ApiError {
  return new ApiError(400, 'validation_failed', message, [{ field, message }]);
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Checks `expires_at` as sent and returns the instant: undefined when absent, null for `null`
 * (no expiry; on update it removes one). Refused with 400 `validation_failed`: anything but such
 * a string, impossible dates (`2026-02-30`, `24:00`, which `Date.parse` would roll over), and
 * instants not in the future.
 */
export function parseExpiresAt(input: unknown, now: Date, field = 'expires_at'): Date | null | undefined {
  if (input === undefined || input === null) return input;
  if (typeof input !== 'string') throw invalid(`${field} must be ${FORMAT_HINT}`, field);
  const parts = DATE_TIME_WITH_ZONE.exec(input);
  if (!parts) throw invalid(`${field} must be ${FORMAT_HINT}`, field);
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = parts
    .slice(1)
    .map((part) => Number(part ?? 0));
  const calendarValid =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59;
  const at = new Date(input);
  if (!calendarValid || Number.isNaN(at.getTime())) throw invalid(`${field} is not a valid date and time`, field);
  if (at.getTime() <= now.getTime()) throw invalid(`${field} must be in the future`, field);
  return at;
}
