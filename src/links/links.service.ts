import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '../auth/auth.decorators.js';
import { LoggedClicks } from '../clicks/logged-clicks.js';
import { ApiError } from '../common/errors/api-error.js';
import { DEFAULT_PAGE_SIZE, type PaginationQueryDto } from '../common/pagination/pagination-query.dto.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import type { LinkDto, LinkListDto } from './dto/link.dto.js';
import { LinkCache } from './link-cache.js';
import { LinksRepository, type LinkRecord } from './links.repository.js';
import { couldBeCode, customCodeProblem, generateCode } from './short-code.js';
import { normalizeTargetUrl } from './target-url.js';

/** What creating a link needs: the JSON body, or the quick-shorten query parameter. */
export interface CreateLinkInput {
  url: unknown;
  custom_code?: string | null;
}

/**
 * A random 7-character code collides only when the table holds trillions of links; a few retries
 * make a failure practically impossible without looping forever on a broken database.
 */
const GENERATED_CODE_ATTEMPTS = 8;

/** `clicks`: the row's count plus, on SQLite, the logged clicks it does not include yet. */
function toLinkDto(link: LinkRecord, shortBaseUrl: string, clicks = link.clicks): LinkDto {
  return {
    code: link.code,
    short_url: `${shortBaseUrl}/${link.code}`,
    url: link.url,
    created_at: link.createdAt.toISOString(),
    updated_at: link.updatedAt.toISOString(),
    clicks,
  };
}

@Injectable()
export class LinksService {
  constructor(
    private readonly links: LinksRepository,
    private readonly cache: LinkCache,
    private readonly loggedClicks: LoggedClicks,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The one way links are created (JSON API and quick shorten). Without a caller the link is
   * anonymous: it belongs to no account and cannot be managed later.
   */
  async create(caller: Caller | undefined, input: CreateLinkInput): Promise<LinkDto> {
    const customCode = input.custom_code ?? undefined;
    if (customCode !== undefined && !caller) {
      throw ApiError.unauthorized('custom_code needs an API token; anonymous links get a generated code');
    }
    const url = normalizeTargetUrl(input.url, this.config.shortBaseUrl);
    const accountId = caller?.accountId ?? null;

    let created: LinkRecord | null;
    if (customCode !== undefined) {
      const problem = customCodeProblem(customCode);
      if (problem) throw ApiError.invalidCode(problem, [{ field: 'custom_code', message: problem }]);
      created = await this.links.insertIfCodeFree({ code: customCode, url, accountId });
      if (!created) throw ApiError.codeTaken(customCode);
    } else {
      created = await this.insertWithGeneratedCode(url, accountId);
    }
    // A code may have been cached on another instance before a delete; creation starts afresh.
    await this.cache.invalidate(created.code);
    return toLinkDto(created, this.config.shortBaseUrl);
  }

  async list(caller: Caller, query: PaginationQueryDto): Promise<LinkListDto> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const offset = query.offset ?? 0;
    const { links, total } = await this.links.listForAccount(caller.accountId, limit, offset);
    return { data: links.map((link) => this.toDto(link)), total, limit, offset };
  }

  async get(caller: Caller, code: string): Promise<LinkDto> {
    const link = couldBeCode(code) ? await this.links.findForAccount(code, caller.accountId) : null;
    if (!link) throw ApiError.notFound();
    return this.toDto(link);
  }

  async updateUrl(caller: Caller, code: string, newUrl: unknown): Promise<LinkDto> {
    if (!couldBeCode(code)) throw ApiError.notFound();
    const url = normalizeTargetUrl(newUrl, this.config.shortBaseUrl);
    const link = await this.links.updateUrlForAccount(code, caller.accountId, url);
    if (!link) throw ApiError.notFound();
    // Before answering: once the client sees 200, no redirect may use the old target.
    await this.cache.invalidate(code);
    return this.toDto(link);
  }

  async remove(caller: Caller, code: string): Promise<void> {
    const deleted = couldBeCode(code) && (await this.links.deleteForAccount(code, caller.accountId));
    if (!deleted) throw ApiError.notFound();
    await this.cache.invalidate(code);
  }

  /** A link read from the database, with the clicks logged since its row was last updated. */
  private toDto(link: LinkRecord): LinkDto {
    return toLinkDto(link, this.config.shortBaseUrl, link.clicks + this.loggedClicks.clicksNotIn(link));
  }

  /**
   * Runs `deleteAccount` (which takes the account's links with it, by foreign key) and then drops
   * every one of those links from the redirect caches of all instances, as `remove` does for one:
   * without it a deleted account's links would go on redirecting until their cache entries expire.
   */
  async deleteAccountWithLinks(accountId: string, deleteAccount: () => Promise<boolean>): Promise<boolean> {
    const codes = await this.links.codesOfAccount(accountId);
    const deleted = await deleteAccount();
    for (const code of codes) await this.cache.invalidate(code);
    return deleted;
  }

  private async insertWithGeneratedCode(url: string, accountId: string | null): Promise<LinkRecord> {
    for (let attempt = 0; attempt < GENERATED_CODE_ATTEMPTS; attempt++) {
      const created = await this.links.insertIfCodeFree({ code: generateCode(), url, accountId });
      if (created) return created;
    }
    throw new Error(`No free code found in ${GENERATED_CODE_ATTEMPTS} attempts`);
  }
}
