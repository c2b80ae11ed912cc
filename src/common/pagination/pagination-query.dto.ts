import { applyDecorators } from '@nestjs/common';
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

/** A list's `limit`: an integer from 1 to `max`, `defaultSize` when absent (the OpenAPI text is the property's comment). */
export function PageLimit(max: number, defaultSize: number): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: max, default: defaultSize }),
    IsOptional(),
    Transform(toStrictInteger),
    IsInt(),
    Min(1),
    Max(max),
  );
}

/** A list's `offset`: how many to skip, 0 to MAX_OFFSET, 0 when absent. */
export function PageOffset(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 }),
    IsOptional(),
    Transform(toStrictInteger),
    IsInt(),
    Min(0),
    Max(MAX_OFFSET),
  );
}

/** `?limit=&offset=` of list endpoints. */
export class PaginationQueryDto {
  /**
   * Page size, 1 to 100.
   * @example 20
   */
  @PageLimit(MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE)
  limit?: number;

  /**
   * Number of links to skip, 0 or more.
   * @example 0
   */
  @PageOffset()
  offset?: number;
}
