import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { PaginationQueryDto } from '../../common/pagination/pagination-query.dto.js';
import { IsTag, MAX_TAG_LENGTH, TAG_PATTERN } from '../link-tags.js';

export const MAX_SEARCH_LENGTH = 200;

/** `?limit=&offset=&q=&tag=` of `GET /api/links`. */
export class ListLinksQueryDto extends PaginationQueryDto {
  /**
   * Keep only links whose code or target URL contains this text, ignoring case (1 to 200
   * characters; `%` and `_` are ordinary characters). `total` then counts the matches.
   * @example "spring"
   */
  // A repeated `q` arrives as an array and fails @IsString: 400, not a guess at which one.
  @ApiPropertyOptional({ minLength: 1, maxLength: MAX_SEARCH_LENGTH })
  @IsOptional()
  @IsString()
  @Length(1, MAX_SEARCH_LENGTH)
  q?: string;

  /**
   * Keep only links with this tag (upper case letters match their lower case); with `q`, links
   * that match both. `total` then counts those.
   * @example "news"
   */
  // Repeated, it arrives as an array and is refused: the list filters by one tag.
  @ApiPropertyOptional({ pattern: TAG_PATTERN, minLength: 1, maxLength: MAX_TAG_LENGTH })
  @IsOptional()
  @IsTag()
  tag?: string;
}
