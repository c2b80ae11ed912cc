import { Inject, Injectable } from '@nestjs/common';
import pLimit from 'p-limit';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ApiError } from '../common/errors/api-error.js';
import { DEFAULT_PAGE_SIZE, type PaginationQueryDto } from '../common/pagination/pagination-query.dto.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { VALIDATION_OPTIONS, validationProblem } from '../common/validation/validation.pipe.js';
import { ListLinksQueryDto } from './dto/list-links-query.dto.js';
import { CreateLinkDto, ImportedLinkDto } from './dto/create-link.dto.js';
import type { LinkDto, LinkListDto } from './dto/link.dto.js';
import { LinkCache } from './link-cache.js';
import { LinkResource } from './link-resource.js';
import { LinksRepository, type LinkRecord, type NewLink } from './links.repository.js';
import { couldBeCode, customCodeProblem, generateCode } from './short-code.js';
import { parseExpiresAt } from './link-expiry.js';
import { parseTags } from './link-tags.js';
// A link's password is hashed as account passwords are (scrypt, OWASP's parameters, a salt each).
import { hashPassword } from '../accounts/passwords.js';
import { MAX_BULK_PASSWORDS, parsePassword } from './link-password.js';
import { qrCodeSvg } from './qr-code.js';
import { destinationsOf } from './link-destinations.js';
import { normalizeTargetUrl, type TargetField } from './target-url.js';
import { WebhookSubscriptions } from '../webhooks/outbox/webhook-subscriptions.js';
import { BlockedHostList, type BlockedHostSnapshot } from '../blocked-hosts/blocked-host-list.js';

/** A bulk item's failure as a problem; anything else is a fault, not the item's doing. */
function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  throw error;
}

/** What creating a link needs: the JSON body, or the quick-shorten query parameter. */
export interface CreateLinkInput {
  url?: unknown;
  custom_code?: unknown;
  expires_at?: unknown;
  tags?: unknown;
  password?: unknown;
  ios_url?: unknown;
  android_url?: unknown;
}

/** What `PUT /api/links/{code}` may change: any of them. */
export interface UpdateLinkInput {
  url?: unknown;
  expires_at?: unknown;
  tags?: unknown;
  password?: unknown;
  ios_url?: unknown;
  android_url?: unknown;
}

/** The fields an update may name; at least one of them. */
const UPDATABLE = ['url', 'expires_at', 'tags', 'password', 'ios_url', 'android_url'] as const;

/** A checked creation, ready to insert. */
interface ValidCreation {
  url: string;
  customCode?: string;
  expiresAt: Date | null;
  tags?: string[];
  /** The password to hash and store, if any. */
  password?: string;
  iosUrl: string | null;
  androidUrl: string | null;
  /** Imports only: the history carried over from another shortener. */
  createdAt?: Date;
  clicks?: number;
}

/**
 * `createMany` for `shortlink links import`: items may also carry `created_at` and `clicks`
 * (kept, so an export imports back unchanged), and an `expires_at` already past is taken as it is.
 */
export interface ImportOptions {
  importing: true;
}

/** The outcome of one bulk item: the link, or the problem that item alone ran into. */
export type BulkItemResult = { link: LinkDto } | { error: ApiError };

/**
 * A random 7-character code collides only when the table holds trillions of links; a few retries
 * make a failure practically impossible without looping forever on a broken database.
 */
const GENERATED_CODE_ATTEMPTS = 8;

/**
 * Bulk calls (of up to 1,000 links each) this instance works on at once; more wait their turn.
 * Each holds its items' checks, records and answers in memory while its inserts run: ten at once
 * took the service's peak RSS from ~190 to 231-239 MiB at 100k links, two at once to 213-216,
 * and no fewer bulk links per second (bench, side by side). On SQLite the inserts queue behind
 * one writer anyway.
 */
const BULK_CALLS_AT_ONCE = 2;

@Injectable()
export class LinksService {
  constructor(
    private readonly links: LinksRepository,
    private readonly resource: LinkResource,
    private readonly cache: LinkCache,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly webhooks: WebhookSubscriptions,
    private readonly blockedHosts: BlockedHostList,
  ) {}

  /**
   * What a change of the account's links tells its webhooks (the link resource, as the API
   * answers it), or undefined when no endpoint of the account receives `event` (one cache lookup).
   */
  private linkEvent(accountId: string | null | undefined, event: 'link.created' | 'link.updated') {
    return this.webhooks.outboxEvent(accountId, event, (record: LinkRecord) => this.toDto(record));
  }

  private readonly bulkTurns = pLimit(BULK_CALLS_AT_ONCE);

  /**
   * The one way links are created (JSON API, quick shorten, the dashboard). Without an account
   * the link is anonymous: it belongs to no account and cannot be managed later.
   */
  async create(accountId: string | undefined, input: CreateLinkInput): Promise<LinkDto> {
    const blocked = await this.blockedHosts.snapshot();
    const { url, customCode, expiresAt, tags, password, iosUrl, androidUrl } = this.checkCreation(
      accountId,
      input,
      new Date(),
      blocked,
    );
    // Hashed once every check has passed: the hash is the expensive part, on purpose.
    const passwordHash = password === undefined ? null : await hashPassword(password);
    const event = await this.linkEvent(accountId, 'link.created');

    let created: LinkRecord | null;
    const link = { url, accountId: accountId ?? null, expiresAt, tags, passwordHash, iosUrl, androidUrl };
    if (customCode !== undefined) {
      created = await this.links.insertIfCodeFree({ ...link, code: customCode }, event);
      if (!created) throw ApiError.codeTaken(customCode);
    } else {
      created = await this.insertWithGeneratedCode(link, event);
    }
    // A code may have been cached on another instance before a delete; creation starts afresh.
    await this.cache.invalidate(created.code, 'created');
    return this.toDto(created);
  }

  /**
   * Creates many links for an account, each item checked and created on its own: the results
   * come in the order of `items`, a link or the problem that item alone ran into (a custom code
   * used twice in one call is `code_taken` the second time). The inserts are batched
   * (`insertManyIfCodesFree`); generated codes that collide are drawn again.
   */
  async createMany(
    accountId: string,
    items: Record<string, unknown>[],
    options?: ImportOptions,
  ): Promise<BulkItemResult[]> {
    return this.bulkTurns(() => this.createManyNow(accountId, items, options));
  }

  private async createManyNow(
    accountId: string,
    items: Record<string, unknown>[],
    options?: ImportOptions,
  ): Promise<BulkItemResult[]> {
    const dto = options?.importing ? ImportedLinkDto : CreateLinkDto;
    const now = new Date();
    const blocked = await this.blockedHosts.snapshot();
    const results = Array.from<BulkItemResult | undefined>({ length: items.length });
    // Every code this call uses: a second use of a custom code is code_taken, and a generated
    // code must differ from all of them (one INSERT cannot tell two rows of one code apart).
    const codesInCall = new Set<string>();
    const freshCode = () => {
      let code = generateCode();
      while (codesInCall.has(code)) code = generateCode();
      codesInCall.add(code);
      return code;
    };
    const pending: Array<{ index: number; creation: ValidCreation; code: string }> = [];
    // The call's distinct passwords, each hashed once (below) for all its links.
    const passwordHashes = new Map<string, string>();
    items.forEach((item, index) => {
      try {
        // The checks the validation pipe makes of POST /api/links (unknown fields, types).
        const invalid = validateSync(plainToInstance(dto, item), VALIDATION_OPTIONS);
        if (invalid.length > 0) throw validationProblem(invalid, options?.importing ? '' : `links[${index}]`);
        const creation = this.checkCreation(accountId, item, options?.importing ? new Date(0) : now, blocked);
        if (options?.importing) {
          if (typeof item.created_at === 'string') creation.createdAt = new Date(item.created_at);
          if (typeof item.clicks === 'number') creation.clicks = item.clicks;
        }
        if (creation.password !== undefined && !passwordHashes.has(creation.password)) {
          if (passwordHashes.size >= MAX_BULK_PASSWORDS) {
            const message = `password: at most ${MAX_BULK_PASSWORDS} different passwords per call (each is hashed on purpose slowly); send the rest in another call`;
            throw ApiError.validationFailed(message, [{ field: 'password', message }]);
          }
          passwordHashes.set(creation.password, '');
        }
        if (creation.customCode !== undefined) {
          if (codesInCall.has(creation.customCode)) throw ApiError.codeTaken(creation.customCode);
          codesInCall.add(creation.customCode);
        }
        pending.push({ index, creation, code: creation.customCode ?? freshCode() });
      } catch (error) {
        results[index] = { error: asApiError(error) };
      }
    });

    // One at a time: each hash takes 128 MiB for its few hundred milliseconds.
    for (const password of passwordHashes.keys()) passwordHashes.set(password, await hashPassword(password));
    const event = pending.length > 0 ? await this.linkEvent(accountId, 'link.created') : undefined;
    for (let attempt = 0; pending.length > 0; attempt++) {
      const inserted = await this.links.insertManyIfCodesFree(
        pending.map(({ creation, code }) => ({
          code,
          url: creation.url,
          accountId,
          expiresAt: creation.expiresAt,
          createdAt: creation.createdAt,
          clicks: creation.clicks,
          tags: creation.tags,
          passwordHash: creation.password === undefined ? null : passwordHashes.get(creation.password),
          iosUrl: creation.iosUrl,
          androidUrl: creation.androidUrl,
        })),
        event,
      );
      const byCode = new Map(inserted.map((record) => [record.code, record]));
      const retry: typeof pending = [];
      for (const item of pending) {
        const record = byCode.get(item.code);
        if (record) results[item.index] = { link: this.toDto(record) };
        else if (item.creation.customCode !== undefined) results[item.index] = { error: ApiError.codeTaken(item.code) };
        else if (attempt + 1 < GENERATED_CODE_ATTEMPTS) retry.push({ ...item, code: freshCode() });
        else throw new Error(`No free code found in ${GENERATED_CODE_ATTEMPTS} attempts`);
      }
      pending.splice(0, pending.length, ...retry);
    }
    // As `create` does, all at once: with Redis, a thousand publishes in flight, not in turn.
    const created = results.flatMap((result) => (result && 'link' in result ? [result.link.code] : []));
    await Promise.all(created.map((code) => this.cache.invalidate(code, 'created')));
    return results as BulkItemResult[];
  }

  /**
   * One page of the account's links, newest first; with `q`, only those whose code or URL
   * contains it (case-insensitive), with `tag` (a valid tag, any case), only those with that tag,
   * and `total` counts those.
   */
  async list(accountId: string, query: PaginationQueryDto & { q?: string; tag?: string }): Promise<LinkListDto> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const offset = query.offset ?? 0;
    const tag = query.tag?.toLowerCase();
    const { links, total } = await this.links.listForAccount(accountId, limit, offset, query.q, tag);
    return { data: links.map((link) => this.toDto(link)), total, limit, offset };
  }

  /**
   * Which of a list's filters `GET /api/links` would refuse (ListLinksQueryDto's `q` and `tag`
   * rules): the dashboard says so next to its search box or tag filter instead of searching.
   */
  refusedListFilters(filter: { q?: string; tag?: string }): Set<'q' | 'tag'> {
    const refused = validateSync(plainToInstance(ListLinksQueryDto, filter), VALIDATION_OPTIONS);
    return new Set(refused.map((problem) => problem.property as 'q' | 'tag'));
  }

  async get(accountId: string, code: string): Promise<LinkDto> {
    const link = couldBeCode(code) ? await this.links.findForAccount(code, accountId) : null;
    if (!link) throw ApiError.notFound();
    return this.toDto(link);
  }

  /**
   * Changes a link's target, expiry (`expires_at: null` removes it), tags (replaced; `[]`
   * removes them all), password or device targets (`null` removes them). A link past its expiry
   * can be changed like any other: a new future `expires_at` brings it back.
   */
  async update(accountId: string, code: string, input: UpdateLinkInput): Promise<LinkDto> {
    if (!couldBeCode(code)) throw ApiError.notFound();
    if (UPDATABLE.every((name) => input[name] === undefined)) {
      const message = 'url is required (unless the body changes expires_at, tags, password, ios_url or android_url)';
      throw ApiError.invalidUrl(message, [{ field: 'url', message }]);
    }
    const url = input.url === undefined ? undefined : normalizeTargetUrl(input.url, this.config.shortBaseUrl);
    const expiresAt = parseExpiresAt(input.expires_at, new Date());
    const tags = parseTags(input.tags);
    const iosUrl = this.deviceUrl(input.ios_url, 'ios_url');
    const androidUrl = this.deviceUrl(input.android_url, 'android_url');
    const destinations = destinationsOf({ url, iosUrl, androidUrl });
    if (destinations.length > 0) {
      const blocked = await this.blockedHosts.snapshot();
      for (const destination of destinations) this.refuseBlocked(destination.url, blocked, destination.field);
    }
    const password = parsePassword(input.password);
    // Hashed once every check has passed: the hash is the expensive part, on purpose.
    const passwordHash = typeof password === 'string' ? await hashPassword(password) : password;
    const event = await this.linkEvent(accountId, 'link.updated');
    const changes = { url, expiresAt, tags, passwordHash, iosUrl, androidUrl };
    const link = await this.links.updateForAccount(code, accountId, changes, event);
    if (!link) throw ApiError.notFound();
    // Before answering: once the client sees 200, no redirect may use the old target, expiry,
    // password or device targets. (Tags play no part in redirects: a change of tags alone leaves
    // the caches be.)
    const redirectChanged = [url, expiresAt, passwordHash, iosUrl, androidUrl].some((value) => value !== undefined);
    if (redirectChanged) await this.cache.invalidate(code);
    return this.toDto(link);
  }

  /** A device target as sent: undefined when absent (unchanged), null for `null` (none), else normalised. */
  private deviceUrl(input: unknown, field: TargetField): string | null | undefined {
    if (input === undefined || input === null) return input;
    return normalizeTargetUrl(input, this.config.shortBaseUrl, field);
  }

  /** The link's short URL as a QR code, an SVG document. */
  async qrCode(accountId: string, code: string): Promise<string> {
    const link = await this.get(accountId, code);
    return qrCodeSvg(link.short_url);
  }

  async remove(accountId: string, code: string): Promise<void> {
    const event = await this.webhooks.outboxEvent(accountId, 'link.deleted', (link: { code: string }) => ({
      code: link.code,
    }));
    const deleted = couldBeCode(code) && (await this.links.deleteForAccount(code, accountId, event));
    if (!deleted) throw ApiError.notFound();
    await this.cache.invalidate(code);
  }

  /**
   * Every link of an account, oldest first, a page at a time (keyset pagination on the primary
   * key order, so each page is one index range read however far the export has got).
   */
  async *pagesForExport(accountId: string, pageSize = 1000): AsyncGenerator<LinkDto[]> {
    let after: LinkRecord | undefined;
    for (;;) {
      const page = await this.links.pageForExport(accountId, pageSize, after);
      if (page.length === 0) return;
      yield page.map((link) => this.toDto(link));
      after = page[page.length - 1];
    }
  }

  private toDto(link: LinkRecord): LinkDto {
    return this.resource.toDto(link);
  }

  /** Every code of an account's links: what to drop from the caches once the account is deleted. */
  codesOfAccount(accountId: string): Promise<string[]> {
    return this.links.codesOfAccount(accountId);
  }

  /**
   * Drops links deleted by other means (an account's, by foreign key) from the redirect caches of
   * all instances, as `remove` does for one: else they would go on redirecting until their cache
   * entries expire.
   */
  async forgetDeleted(codes: string[]): Promise<void> {
    for (const code of codes) await this.cache.invalidate(code);
  }

  /**
   * Every check of a creation, in the order a caller should learn of them: an anonymous
   * `custom_code`, `tags` or `password` is 401 before anything about the URL.
   */
  private checkCreation(
    accountId: string | undefined,
    input: CreateLinkInput,
    now: Date,
    blocked: BlockedHostSnapshot,
  ): ValidCreation {
    const customCode = input.custom_code ?? undefined;
    if (customCode !== undefined && !accountId) {
      throw ApiError.unauthorized('custom_code needs an API token; anonymous links get a generated code');
    }
    if (input.tags !== undefined && !accountId) {
      throw ApiError.unauthorized('tags need an API token; anonymous links cannot be tagged');
    }
    if (input.password !== undefined && input.password !== null && !accountId) {
      throw ApiError.unauthorized('password needs an API token; anonymous links cannot be protected');
    }
    const url = normalizeTargetUrl(input.url, this.config.shortBaseUrl);
    this.refuseBlocked(url, blocked);
    if (customCode !== undefined) {
      const problem = typeof customCode === 'string' ? customCodeProblem(customCode) : 'custom_code must be a string';
      if (problem) throw ApiError.invalidCode(problem, [{ field: 'custom_code', message: problem }]);
    }
    const expiresAt = parseExpiresAt(input.expires_at, now) ?? null;
    const tags = parseTags(input.tags);
    const iosUrl = this.deviceUrl(input.ios_url, 'ios_url') ?? null;
    const androidUrl = this.deviceUrl(input.android_url, 'android_url') ?? null;
    // `url` was checked above, first: the other destinations here.
    for (const destination of destinationsOf({ iosUrl, androidUrl })) {
      this.refuseBlocked(destination.url, blocked, destination.field);
    }
    const password = parsePassword(input.password) ?? undefined;
    return { url, customCode: customCode as string | undefined, expiresAt, tags, password, iosUrl, androidUrl };
  }

  /** `blocked_url` when a (normalised) target points at a blocked host or one of its subdomains. */
  private refuseBlocked(url: string, blocked: BlockedHostSnapshot, field: TargetField = 'url'): void {
    const host = blocked.blockerOf(url);
    if (host !== null) throw ApiError.blockedUrl(host, field);
  }

  private async insertWithGeneratedCode(
    link: Omit<NewLink, 'code'>,
    event: Awaited<ReturnType<LinksService['linkEvent']>>,
  ): Promise<LinkRecord> {
    for (let attempt = 0; attempt < GENERATED_CODE_ATTEMPTS; attempt++) {
      const created = await this.links.insertIfCodeFree({ ...link, code: generateCode() }, event);
      if (created) return created;
    }
    throw new Error(`No free code found in ${GENERATED_CODE_ATTEMPTS} attempts`);
  }
}
