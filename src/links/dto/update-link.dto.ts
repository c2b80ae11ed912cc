import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsOptional, IsString, ValidateIf } from 'class-validator';
import { IsTagList } from '../link-tags.js';
import { TAGS_SCHEMA } from './create-link.dto.js';

/** Body of `PUT /api/links/{code}`: the new target, expiry or tags, or any of them together. */
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
}
