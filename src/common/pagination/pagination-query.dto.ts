import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/** Far beyond any real list, but small enough for every database's OFFSET. */
export const MAX_OFFSET = 2_147_483_647;

// Query values arrive as strings. Only plain decimal integers become numbers; anything else
// ("abc", "1.5", "", " 1", a repeated parameter) stays as given and fails @IsInt.
export const toStrictInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;

/** `?limit=&offset=` of list endpoints. */
export class PaginationQueryDto {
  /**
   * Page size, 1 to 100.
   * @example 20
   */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })
  @IsOptional()
  @Transform(toStrictInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit?: number;

  /**
   * Number of links to skip, 0 or more.
   * @example 0
   */
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 })
  @IsOptional()
  @Transform(toStrictInteger)
  @IsInt()
  @Min(0)
  @Max(MAX_OFFSET)
  offset?: number;
}
