import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { PaginationQueryDto } from '../../common/pagination/pagination-query.dto.js';

export const MAX_SEARCH_LENGTH = 200;

/** `?limit=&offset=&q=` of `GET /api/links`. */
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
}
