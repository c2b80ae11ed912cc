import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject } from 'class-validator';
import { ProblemDto } from '../../common/errors/problem.dto.js';
import { CreateLinkDto } from './create-link.dto.js';
import { LinkDto } from './link.dto.js';

export const MAX_BULK_ITEMS = 1000;

/** Body of `POST /api/links/bulk`. */
@ApiSchema({ name: 'BulkCreateLinksRequest' })
export class BulkCreateLinksDto {
  /**
   * 1 to 1000 links to create, each as the body of `POST /api/links`.
   */
  // Only the shape is checked here (an array of objects): each item is then checked on its own
  // by the service, so one bad item gets its own error instead of refusing the whole call.
  @ApiProperty({ type: [CreateLinkDto], minItems: 1, maxItems: MAX_BULK_ITEMS })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BULK_ITEMS)
  @IsObject({ each: true, message: 'each item of links must be a JSON object' })
  links!: Record<string, unknown>[];
}

/** One item's outcome: `link` when it was created, `error` when not (never both). */
@ApiSchema({ name: 'BulkCreateLinksResult' })
export class BulkCreateLinksResultDto {
  /** The created link. */
  @ApiPropertyOptional({ type: LinkDto })
  link?: LinkDto;

  /** Why this item was not created, as the problem `POST /api/links` would have answered. */
  @ApiPropertyOptional({ type: ProblemDto })
  error?: ProblemDto;
}

/** Answer of `POST /api/links/bulk`: one result per item, in request order. */
@ApiSchema({ name: 'BulkCreateLinksResponse' })
export class BulkCreateLinksResponseDto {
  /** `data[i]` is the outcome of `links[i]`. */
  data!: BulkCreateLinksResultDto[];
}
