import { ApiProperty, ApiSchema } from '@nestjs/swagger';

/** One of the account's tags and what its links add up to. */
@ApiSchema({ name: 'TagSummary' })
export class TagSummaryDto {
  /**
   * The tag.
   * @example "news"
   */
  tag!: string;

  /**
   * How many of your links have it.
   * @example 12
   */
  @ApiProperty({ type: 'integer', minimum: 1 })
  links!: number;

  /**
   * The all-time clicks of those links together (each link's `clicks`), bots included.
   * @example 340
   */
  @ApiProperty({ type: 'integer', minimum: 0 })
  clicks!: number;
}

/** Every tag your links have, sorted by tag. */
@ApiSchema({ name: 'TagList' })
export class TagListDto {
  /** The tags, sorted. */
  data!: TagSummaryDto[];
}
