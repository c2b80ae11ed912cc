/** The scopes any account's token may hold; a token created without a choice gets them all. */
export const SCOPES = ['links:read', 'links:write', 'webhooks:read', 'webhooks:write'] as const;
/**
 * The instance's administration (`/api/admin/…`): only an admin's token may hold it, it is never
 * given by default, and it stops working when the account stops being an admin.
 */
export const ADMIN_SCOPE = 'admin';
/** Every scope there is. */
export const ALL_SCOPES = [...SCOPES, ADMIN_SCOPE] as const;
export type Scope = (typeof ALL_SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}
