import { ApiProperty, ApiSchema } from '@nestjs/swagger';

/** A short link as the API returns it. */
@ApiSchema({ name: 'Link' })
export class LinkDto {
  /**
   * The short code: the last path segment of `short_url`.
   * @example "Ab3dE9x"
   */
  code!: string;

  /**
   * The short URL to share: `{SHORT_BASE_URL}/{code}`.
   * @example "https://sho.rt/Ab3dE9x"
   */
  @ApiProperty({ format: 'uri' })
  short_url!: string;

  /**
   * The target the short URL redirects to, normalised.
   * @example "https://example.com/"
   */
  @ApiProperty({ format: 'uri' })
  url!: string;

  /**
   * When the link was created (ISO 8601, UTC).
   * @example "2026-11-21T10:00:00.000Z"
   */
  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  /**
   * When the link was last changed: its target, expiry, tags, password or device targets (ISO
   * 8601, UTC).
   * @example "2026-11-21T10:00:00.000Z"
   */
  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  /**
   * When the link stops redirecting (ISO 8601, UTC); null when it never does. After it the
   * short URL answers `410 Gone`.
   * @example null
   */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  expires_at!: string | null;

  /**
   * Redirects served so far. Counts are written in batches, so this may lag behind by up to
   * the click flush interval (1 second by default).
   * @example 0
   */
  @ApiProperty({ type: 'integer', minimum: 0 })
  clicks!: number;

  /**
   * The link's tags, lower case, sorted; `[]` when it has none.
   * @example ["news", "spring-sale"]
   */
  @ApiProperty({ type: [String] })
  tags!: string[];

  /**
   * Whether people must enter a password before the short URL redirects them (the password
   * itself is never returned).
   * @example false
   */
  password_protected!: boolean;

  /**
   * Where iPhones, iPads and iPods go instead of `url`; null: to `url`.
   * @example null
   */
  @ApiProperty({ type: 'string', format: 'uri', nullable: true })
  ios_url!: string | null;

  /**
   * Where Android devices go instead of `url`; null: to `url`.
   * @example null
   */
  @ApiProperty({ type: 'string', format: 'uri', nullable: true })
  android_url!: string | null;
}

/** One page of the caller's links, newest first. */
@ApiSchema({ name: 'LinkList' })
export class LinkListDto {
  /** The links of this page. */
  data!: LinkDto[];

  /**
   * How many links the account has in all (with `q` or `tag`: how many match).
   * @example 42
   */
  @ApiProperty({ type: 'integer', minimum: 0 })
  total!: number;

  /**
   * The page size used.
   * @example 20
   */
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100 })
  limit!: number;

  /**
   * How many links were skipped.
   * @example 0
   */
  @ApiProperty({ type: 'integer', minimum: 0 })
  offset!: number;
}
