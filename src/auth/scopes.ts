/** Every scope a token may hold; a token created without a choice gets them all. */
export const SCOPES = ['links:read', 'links:write', 'webhooks:read', 'webhooks:write'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
