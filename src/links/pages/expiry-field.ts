/**
 * The dashboard's expiry field: an `<input type="datetime-local">` read as UTC (the label says
 * so). A browser sends no time zone, and the page must work without script, so UTC is the one
 * reading that is the same for everyone.
 */
const LOCAL_DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/;

/**
 * The form's value as the API's `expires_at`: undefined for "no change", null to remove the
 * expiry, else an ISO string for the service to check (a malformed value is passed on as it is,
 * so the service's own message explains it).
 */
export function expiryFromForm(value: string, current: string | null = null): string | null | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return current === null ? undefined : null;
  const iso = LOCAL_DATE_TIME.test(trimmed) ? `${trimmed.length === 16 ? `${trimmed}:00` : trimmed}Z` : trimmed;
  // Unchanged (the field shows minutes): an expired link can then be retargeted as it is.
  if (current !== null && Date.parse(iso) === Date.parse(current.slice(0, 16) + ':00Z')) return undefined;
  return iso;
}

/** An `expires_at` as the field's value: UTC, to the minute. */
export function expiryForForm(expiresAt: string | null): string {
  return expiresAt === null ? '' : expiresAt.slice(0, 16);
}
