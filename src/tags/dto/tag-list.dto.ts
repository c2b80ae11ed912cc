import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { PageLimit, PageOffset } from '../../common/pagination/pagination-query.dto.js';

/**
 * A page of tags by default: a tag's summary is a few dozen bytes, so pages are larger than the
 * links list's, and a client that never pages still gets every tag of most accounts.
 */
export const DEFAULT_TAG_PAGE_SIZE = 100;
/** At most this many tags a page (about 40 KiB). */
export const MAX_TAG_PAGE_SIZE = 1000;

/** `?limit=&offset=` of `GET /api/tags`: the links list's paging, with pages of tags. */
export class ListTagsQueryDto {
  /**
   * How many tags, 1 to 1000.
   * @example 100
   */
  @PageLimit(MAX_TAG_PAGE_SIZE, DEFAULT_TAG_PAGE_SIZE)
  limit?: number;

  /**
   * How many tags to skip (in tag order), 0 or more.
   * @example 0
   */
  @PageOffset()
  offset?: number;
}

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

/** One page of the tags your links have, sorted by tag. */
@ApiSchema({ name: 'TagList' })
export class TagListDto {
  /** The tags of this page, sorted by tag (character by character: `-` before digits before letters). */
  data!: TagSummaryDto[];

  /**
   * How many tags your links have in all.
   * @example 2
   */
  @ApiProperty({ type: 'integer', minimum: 0 })
  total!: number;

  /**
   * The page size used.
   * @example 100
   */
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_TAG_PAGE_SIZE })
  limit!: number;

  /**
   * How many tags were skipped.
   * @example 0
   */
  @ApiProperty({ type: 'integer', minimum: 0 })
  offset!: number;
}
