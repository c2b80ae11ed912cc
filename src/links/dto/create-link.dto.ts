import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsInt, IsISO8601, IsOptional, IsString, Max, Min, ValidateIf } from 'class-validator';
import { IsTagList, MAX_TAG_LENGTH, MAX_TAGS, TAG_PATTERN } from '../link-tags.js';
import { IsLinkPassword, LINK_PASSWORD_MAX_LENGTH, LINK_PASSWORD_MIN_LENGTH } from '../link-password.js';

/** The OpenAPI schema of a `password` field of a request. */
export const PASSWORD_SCHEMA = {
  type: 'string',
  minLength: LINK_PASSWORD_MIN_LENGTH,
  maxLength: LINK_PASSWORD_MAX_LENGTH,
  nullable: true,
  writeOnly: true,
} as const;

/** The OpenAPI schema of a device target of a request. */
export const DEVICE_URL_SCHEMA = { type: 'string', format: 'uri', nullable: true } as const;

/** The OpenAPI schema of a `tags` field of a request. */
export const TAGS_SCHEMA = {
  type: 'array',
  maxItems: MAX_TAGS,
  items: { type: 'string', pattern: TAG_PATTERN, minLength: 1, maxLength: MAX_TAG_LENGTH },
} as const;

/** Body of `POST /api/links`. */
@ApiSchema({ name: 'CreateLinkRequest' })
export class CreateLinkDto {
  /**
   * The target: an absolute http:// or https:// URL of at most 8192 characters (normalised),
   * without user info, whitespace or control characters. Stored in normalised form.
   * @example "https://example.com/a/very/long/path?with=query"
   */
  @IsString()
  url!: string;

  /**
   * A code of your choice instead of a generated one: 3 to 64 characters from
   * `[A-Za-z0-9_-]`, case-sensitive, not a reserved name (api, docs, health, …). Needs an API
   * token. `null` is the same as leaving it out.
   * @example "spring-sale"
   */
  // Only the type is checked here; length, alphabet and reserved names are checked by the
  // service, after the token requirement, so an anonymous caller always learns "401" first.
  @IsOptional()
  @IsString()
  custom_code?: string | null;

  /**
   * When the link stops redirecting: an ISO 8601 date-time with a time zone, in the future.
   * After it, the short URL answers `410 Gone` (`link_expired`); the link can still be read,
   * changed (a new `expires_at` revives it) and deleted. `null` is the same as leaving it out.
   * @example "2026-12-31T23:59:59Z"
   */
  // Format and "in the future" are checked by the service (link-expiry.ts), for bulk items too.
  @ApiPropertyOptional({ type: 'string', format: 'date-time', nullable: true })
  @IsOptional()
  expires_at?: string | null;

  /**
   * Tags to file the link under: at most 10, each 1 to 32 letters, digits or hyphens. Upper case
   * is stored as lower case, and a tag given twice (in any case) is kept once. Needs an API
   * token. `null` is refused: leave the field out, or send `[]`, for none.
   * @example ["spring-sale", "news"]
   */
  @ApiPropertyOptional(TAGS_SCHEMA)
  @ValidateIf((_, value) => value !== undefined)
  @IsTagList()
  tags?: string[];

  /**
   * A password people must enter before the short URL redirects them: 8 to 256 characters.
   * Stored hashed (scrypt) and never returned; the link's `password_protected` says it has one.
   * Needs an API token. `null` is the same as leaving it out.
   * @example "open sesame"
   */
  @ApiPropertyOptional(PASSWORD_SCHEMA)
  @IsLinkPassword()
  password?: string | null;

  /**
   * Where iPhones, iPads and iPods go instead of `url` (same rules as `url`). `null` is the same
   * as leaving it out: they go to `url`.
   * @example "https://apps.apple.com/app/id123456789"
   */
  @ApiPropertyOptional(DEVICE_URL_SCHEMA)
  @IsOptional()
  ios_url?: string | null;

  /**
   * Where Android devices go instead of `url` (same rules as `url`). `null` is the same as
   * leaving it out: they go to `url`.
   * @example "https://play.google.com/store/apps/details?id=com.example.app"
   */
  @ApiPropertyOptional(DEVICE_URL_SCHEMA)
  @IsOptional()
  android_url?: string | null;
}

/**
 * A row of `shortlink links import`: a creation plus the history an export carries. Not part of
 * the HTTP API (no `@ApiSchema`): clients cannot backdate links or set their clicks.
 */
export class ImportedLinkDto extends CreateLinkDto {
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'created_at must be an ISO 8601 date-time' })
  created_at?: string;

  @IsOptional()
  @IsInt({ message: 'clicks must be a whole number' })
  @Min(0, { message: 'clicks must not be negative' })
  @Max(2_147_483_647, { message: 'clicks is too large' })
  clicks?: number;
}
