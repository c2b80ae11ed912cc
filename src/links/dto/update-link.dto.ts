import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsOptional, IsString, ValidateIf } from 'class-validator';
import { IsTagList } from '../link-tags.js';
import { IsLinkPassword } from '../link-password.js';
import { DEVICE_URL_SCHEMA, PASSWORD_SCHEMA, TAGS_SCHEMA } from './create-link.dto.js';

/**
 * Body of `PUT /api/links/{code}`: the new target, expiry, tags, password or device targets, or
 * any of them together. A field left out keeps its value.
 */
@ApiSchema({ name: 'UpdateLinkRequest' })
export class UpdateLinkDto {
  /**
   * The new target, with the same rules as on creation.
   * @example "https://example.com/new-target"
   */
  @IsOptional()
  @IsString()
  url?: string;

  /**
   * The new expiry (ISO 8601 with a time zone, in the future), or `null` to remove it. Left
   * out: unchanged.
   * @example "2027-01-31T23:59:59Z"
   */
  @ApiPropertyOptional({ type: 'string', format: 'date-time', nullable: true })
  @IsOptional()
  expires_at?: string | null;

  /**
   * The link's tags from now on, replacing the ones it has (same rules as on creation); `[]`
   * removes them all. Left out: unchanged. `null` is refused (400): send `[]` to clear.
   * @example ["spring-sale"]
   */
  @ApiPropertyOptional(TAGS_SCHEMA)
  @ValidateIf((_, value) => value !== undefined)
  @IsTagList()
  tags?: string[];

  /**
   * A new password (8 to 256 characters; stored hashed, never returned), or `null` to remove
   * the one the link has. Left out: unchanged.
   * @example "open sesame"
   */
  @ApiPropertyOptional(PASSWORD_SCHEMA)
  @IsLinkPassword()
  password?: string | null;

  /**
   * Where iPhones, iPads and iPods go from now on (same rules as `url`), or `null` to send them
   * to `url`. Left out: unchanged.
   * @example "https://apps.apple.com/app/id123456789"
   */
  @ApiPropertyOptional(DEVICE_URL_SCHEMA)
  @IsOptional()
  ios_url?: string | null;

  /**
   * Where Android devices go from now on (same rules as `url`), or `null` to send them to
   * `url`. Left out: unchanged.
   * @example "https://play.google.com/store/apps/details?id=com.example.app"
   */
  @ApiPropertyOptional(DEVICE_URL_SCHEMA)
  @IsOptional()
  android_url?: string | null;
}
