import { Injectable } from '@nestjs/common';
import { ClicksService } from '../clicks/clicks.service.js';
import { LoggedClicks } from '../clicks/logged-clicks.js';
import { DEFAULT_TAG_PAGE_SIZE, type ListTagsQueryDto, type TagListDto } from './dto/tag-list.dto.js';
import { TagsRepository } from './tags.repository.js';

/** The tags of an account's links, for the API (`GET /api/tags`). */
@Injectable()
export class TagsService {
  constructor(
    private readonly repository: TagsRepository,
    private readonly loggedClicks: LoggedClicks,
    private readonly clicks: ClicksService,
  ) {}

  /**
   * One page of the tags of the account's links, sorted, with how many links have each and their
   * clicks together; on SQLite, the clicks logged and not folded into the links yet included (as
   * each link's `clicks` includes them).
   */
  async list(accountId: string, query: ListTagsQueryDto = {}): Promise<TagListDto> {
    const limit = query.limit ?? DEFAULT_TAG_PAGE_SIZE;
    const offset = query.offset ?? 0;
    const loggedCodes = await this.clicks.loggedCodesOf(accountId);
    const rows = await this.repository.accountTags(accountId, loggedCodes, limit, offset);
    const byTag = new Map(rows.tags.map((row) => [row.tag, { ...row }]));
    for (const { link, tags } of rows.logged) {
      const clicks = this.loggedClicks.clicksNotIn(link);
      for (const tag of tags) {
        const summary = byTag.get(tag);
        if (summary) summary.clicks += clicks;
      }
    }
    return {
      data: [...byTag.values()].sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0)),
      total: rows.total,
      limit,
      offset,
    };
  }
}
