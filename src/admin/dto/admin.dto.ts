import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUUID, Length, MaxLength } from 'class-validator';
import { PaginationQueryDto } from '../../common/pagination/pagination-query.dto.js';
import { LinkDto } from '../../links/dto/link.dto.js';
import { MAX_SEARCH_LENGTH } from '../../links/dto/list-links-query.dto.js';
import { REPORT_REASONS, REPORT_STATUSES } from '../../reports/reports.service.js';
import { MAX_REASON_LENGTH } from '../admin.service.js';

/** Body of `POST /api/admin/blocked-hosts`. */
@ApiSchema({ name: 'BlockHostRequest' })
export class BlockHostDto {
  /**
   * The host to block, with its subdomains: a name (any case, Unicode or punycode, a trailing
   * dot is dropped) or an IP address. Not a URL, and without a port.
   * @example "evil.example"
   */
  @IsString()
  @MaxLength(1000)
  host!: string;
}

/** A blocked host. */
@ApiSchema({ name: 'BlockedHost' })
export class BlockedHostDto {
  /**
   * The host as it is compared: lower case, punycode, no trailing dot.
   * @example "evil.example"
   */
  host!: string;

  /**
   * When it was blocked (ISO 8601, UTC).
   * @example "2026-11-26T10:00:00.000Z"
   */
  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  /**
   * Who blocked it: an admin's e-mail address, or `cli`.
   * @example "admin@example.com"
   */
  created_by!: string;
}

/** The answer to blocking a host. */
@ApiSchema({ name: 'BlockedHostCreated' })
export class BlockedHostCreatedDto extends BlockedHostDto {
  /**
   * How many live links to the host (or its subdomains) were disabled.
   * @example 3
   */
  @ApiProperty({ type: 'integer', minimum: 0 })
  disabled_links!: number;
}

/** Every blocked host, in name order. */
@ApiSchema({ name: 'BlockedHostList' })
export class BlockedHostListDto {
  data!: BlockedHostDto[];
}

/** Body of `POST /api/admin/links/{code}/disable`. */
@ApiSchema({ name: 'DisableLinkRequest' })
export class DisableLinkDto {
  /**
   * Why: kept in the audit log, and shown to the link's owner. 1 to 500 characters.
   * @example "Phishing page imitating a bank"
   */
  @IsString()
  @MaxLength(MAX_REASON_LENGTH)
  reason!: string;
}

/** `?status=&limit=&offset=` of `GET /api/admin/reports`. */
export class ListReportsQueryDto extends PaginationQueryDto {
  /**
   * Which reports: `open` (waiting for an admin, the default), `resolved` (the link was
   * disabled) or `dismissed`.
   * @example "open"
   */
  @ApiPropertyOptional({ enum: REPORT_STATUSES, enumName: 'ReportStatus', default: 'open' })
  @IsOptional()
  @IsIn(REPORT_STATUSES)
  status?: (typeof REPORT_STATUSES)[number];
}

/** A report of a short link, sent through the public /report page. */
@ApiSchema({ name: 'Report' })
export class ReportDto {
  /**
   * @example "0b9f3c2e-4d0a-4c55-9a64-0d3f8f1e2a7b"
   */
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /**
   * The reported short URL.
   * @example "https://sho.rt/Ab3dE9x"
   */
  @ApiProperty({ format: 'uri' })
  short_url!: string;

  /**
   * The reported link's code (the link may have been deleted since).
   * @example "Ab3dE9x"
   */
  code!: string;

  /**
   * @example "phishing"
   */
  @ApiProperty({ enum: REPORT_REASONS, enumName: 'ReportReason' })
  reason!: string;

  /**
   * What the reporter wrote (up to 2000 characters; may be empty).
   * @example "Asks for my bank password"
   */
  details!: string;

  /**
   * When it was sent (ISO 8601, UTC).
   * @example "2026-11-26T10:00:00.000Z"
   */
  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  /**
   * @example "open"
   */
  @ApiProperty({ enum: REPORT_STATUSES, enumName: 'ReportStatus' })
  status!: string;
}

/** One page of reports with one status, newest first. */
@ApiSchema({ name: 'ReportList' })
export class ReportListDto {
  data!: ReportDto[];

  /**
   * How many reports have this status.
   * @example 1
   */
  @ApiProperty({ type: 'integer', minimum: 0 })
  total!: number;

  /** @example 20 */
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100 })
  limit!: number;

  /** @example 0 */
  @ApiProperty({ type: 'integer', minimum: 0 })
  offset!: number;
}

/** `?q=&account=&limit=&offset=` of `GET /api/admin/links`. */
export class ListAdminLinksQueryDto extends PaginationQueryDto {
  /**
   * Keep only links whose code or one of whose destinations (`url`, `ios_url`, `android_url`)
   * contains this text: part of a code, a URL or a host (a host in any letter case). 1 to 200
   * characters; `%` and `_` are ordinary characters.
   * @example "evil.example"
   */
  // A repeated `q` arrives as an array and fails @IsString: 400, not a guess at which one.
  @ApiPropertyOptional({ minLength: 1, maxLength: MAX_SEARCH_LENGTH })
  @IsOptional()
  @IsString()
  @Length(1, MAX_SEARCH_LENGTH)
  q?: string;

  /**
   * Keep only this account's links (its id).
   * @example "0b9f3c2e-4d0a-4c55-9a64-0d3f8f1e2a7b"
   */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  account?: string;
}

const DESTINATION_FIELDS = ['url', 'ios_url', 'android_url'] as const;

/** One place a link sends visitors. */
@ApiSchema({ name: 'LinkDestination' })
export class LinkDestinationDto {
  /**
   * The link's field it comes from: `url` (everyone else), `ios_url` (iPhones, iPads, iPods),
   * `android_url` (Android devices).
   * @example "ios_url"
   */
  @ApiProperty({ enum: DESTINATION_FIELDS, enumName: 'LinkDestinationField' })
  field!: (typeof DESTINATION_FIELDS)[number];

  /**
   * The URL visitors are sent to.
   * @example "https://evil.example/login"
   */
  @ApiProperty({ format: 'uri' })
  url!: string;
}

/** A link of any account, as the admins see it. */
@ApiSchema({ name: 'AdminLink' })
export class AdminLinkDto extends LinkDto {
  /**
   * The owner's e-mail address; null for an anonymous link.
   * @example "someone@example.com"
   */
  @ApiProperty({ type: 'string', nullable: true })
  owner_email!: string | null;

  /**
   * Why the link is disabled; null while it is live.
   * @example null
   */
  @ApiProperty({ type: 'string', nullable: true })
  disabled_reason!: string | null;

  /**
   * What disabled it: `admin` (by hand), `host` (a blocked host), `account` (its account is
   * disabled); null while it is live.
   * @example null
   */
  @ApiProperty({ enum: ['admin', 'host', 'account'], enumName: 'DisabledCause', nullable: true })
  disabled_cause!: 'admin' | 'host' | 'account' | null;

  /**
   * Every place the link sends visitors, `url` first: look at all of them, not `url` alone (a
   * harmless `url` may hide a phishing page for phones).
   */
  destinations!: LinkDestinationDto[];
}

/** One page of every account's links, newest first. */
@ApiSchema({ name: 'AdminLinkList' })
export class AdminLinkListDto {
  data!: AdminLinkDto[];

  /**
   * How many links there are (with `q` or `account`: how many match).
   * @example 1
   */
  @ApiProperty({ type: 'integer', minimum: 0 })
  total!: number;

  /** @example 20 */
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100 })
  limit!: number;

  /** @example 0 */
  @ApiProperty({ type: 'integer', minimum: 0 })
  offset!: number;
}
