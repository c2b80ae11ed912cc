import { Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentSession, Public, SignedIn, VerifiedEmailToCreate } from '../../auth/auth.decorators.js';
import { ApiError } from '../../common/errors/api-error.js';
import { ClicksService } from '../../clicks/clicks.service.js';
import { DEFAULT_CLICK_DAYS } from '../../clicks/dto/link-clicks.dto.js';
import { MAX_SEARCH_LENGTH } from '../dto/list-links-query.dto.js';
import type { LinkDto } from '../dto/link.dto.js';
import { LinksService } from '../links.service.js';
import { qrCodeSvg } from '../qr-code.js';
import { AnonymousCreation } from '../../rate-limit/rate-limit.decorators.js';
import { clickChart } from '../../clicks/pages/click-chart.js';
import { visitorTables } from '../../clicks/pages/click-tables.js';
import { expiryForForm, expiryFromForm } from './expiry-field.js';
import { tagsForForm, tagsFromForm } from './tags-field.js';
import { LinkPasswordGuesses } from '../../redirect/link-password-guesses.js';
import { PageController } from '../../pages/page-controller.decorator.js';
import { field, formErrors, Pages, type Errors, type Form } from '../../pages/pages.js';
import type { ActiveSession } from '../../auth/sessions/sessions.service.js';

const PAGE_SIZE = 20;
/** The link forms' fields, as the pages label them in messages. */
const LINK_FIELDS = {
  url: 'The URL',
  custom_code: 'The custom code',
  expires_at: 'The expiry',
  tags: 'The tags',
  ios_url: 'The iPhone and iPad URL',
  android_url: 'The Android URL',
};
const PASSWORD_FIELDS = { password: 'The password' };

/** The pages for links: the front page's anonymous form, the account's list, one link's page. */
@PageController()
@SignedIn()
export class LinksPagesController {
  constructor(
    private readonly links: LinksService,
    private readonly clicks: ClicksService,
    private readonly guesses: LinkPasswordGuesses,
    private readonly pages: Pages,
  ) {}

  // ---- front page --------------------------------------------------------------------------

  @Get('/')
  @Public()
  async home(@Res() reply: FastifyReply, @CurrentSession() session: ActiveSession | null) {
    if (session) return reply.redirect('/dashboard', 303);
    return this.pages.render(reply, 'home', { form: {}, errors: {} });
  }

  @Post('/')
  @Public()
  @AnonymousCreation()
  async shortenAnonymously(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const form = request.body as Form;
    const url = field(form, 'url');
    try {
      const link = await this.links.create(undefined, { url });
      return this.pages.render(reply, 'home', { form: {}, errors: {}, created: link });
    } catch (error) {
      return this.pages.render(reply, 'home', { form: { url }, errors: formErrors(error, LINK_FIELDS) }, 400);
    }
  }

  // ---- links -----------------------------------------------------------------------------

  @Get('/dashboard')
  async dashboard(@Res() reply: FastifyReply, @Query('page') page: unknown, @CurrentSession() session: ActiveSession) {
    return this.renderDashboard(reply, session, page, { form: {}, errors: {} });
  }

  @Post('/dashboard')
  @VerifiedEmailToCreate()
  async createLink(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession,
  ) {
    const form = request.body as Form;
    const url = field(form, 'url');
    const customCode = field(form, 'custom_code', 1000).trim();
    const expiresAt = field(form, 'expires_at', 100);
    const tags = field(form, 'tags', 1000);
    try {
      const link = await this.links.create(session.accountId, {
        url,
        custom_code: customCode === '' ? undefined : customCode,
        expires_at: expiryFromForm(expiresAt),
        tags: tagsFromForm(tags),
      });
      return reply.redirect(`/dashboard?created=${encodeURIComponent(link.code)}`, 303);
    } catch (error) {
      return this.renderDashboard(
        reply,
        session,
        1,
        {
          form: { url, custom_code: customCode, expires_at: expiresAt, tags },
          errors: formErrors(error, LINK_FIELDS),
        },
        400,
      );
    }
  }

  @Get('/dashboard/links/:code')
  async linkPage(@Res() reply: FastifyReply, @Param('code') code: string, @CurrentSession() session: ActiveSession) {
    const link = await this.links.get(session.accountId, code);
    return this.renderLink(reply, session, link, { form: linkForm(link), errors: {} });
  }

  /** The link's QR code as an SVG file to download (the link page shows it inline). */
  @Get('/dashboard/links/:code/qr.svg')
  async linkQrCode(@Res() reply: FastifyReply, @Param('code') code: string, @CurrentSession() session: ActiveSession) {
    const svg = await this.links.qrCode(session.accountId, code);
    return reply
      .header('Content-Type', 'image/svg+xml; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="${code}-qr.svg"`)
      .send(svg);
  }

  @Post('/dashboard/links/:code')
  async editLink(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('code') code: string,
    @CurrentSession() session: ActiveSession,
  ) {
    const form = request.body as Form;
    const url = field(form, 'url');
    const expiresAt = field(form, 'expires_at', 100);
    const tags = field(form, 'tags', 1000);
    const iosUrl = field(form, 'ios_url');
    const androidUrl = field(form, 'android_url');
    // Read once: the fields left as shown stay unchanged, and a refusal shows the link as it is.
    const current = await this.links.get(session.accountId, code);
    try {
      await this.links.update(session.accountId, code, {
        url,
        expires_at: expiryFromForm(expiresAt, current.expires_at),
        tags: tagsFromForm(tags, current.tags),
        ios_url: deviceUrlFromForm(iosUrl, current.ios_url),
        android_url: deviceUrlFromForm(androidUrl, current.android_url),
      });
      return reply.redirect(`/dashboard/links/${encodeURIComponent(code)}?saved=1`, 303);
    } catch (error) {
      if (error instanceof ApiError && error.errorName === 'not_found') throw error;
      return this.renderLink(
        reply,
        session,
        current,
        {
          form: { url, expires_at: expiresAt, tags, ios_url: iosUrl, android_url: androidUrl },
          errors: formErrors(error, LINK_FIELDS),
        },
        400,
      );
    }
  }

  /** Sets or changes the link's password (its own form: a password is never shown back). */
  @Post('/dashboard/links/:code/password')
  async setPassword(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('code') code: string,
    @CurrentSession() session: ActiveSession,
  ) {
    // Longer than any password may be, so that a longer one is refused, not cut to fit.
    const password = field(request.body as Form, 'password', 1000);
    try {
      await this.links.update(session.accountId, code, { password });
      return reply.redirect(`/dashboard/links/${encodeURIComponent(code)}?password=set`, 303);
    } catch (error) {
      if (error instanceof ApiError && error.errorName === 'not_found') throw error;
      const link = await this.links.get(session.accountId, code);
      const errors = formErrors(error, PASSWORD_FIELDS);
      return this.renderLink(reply, session, link, { form: linkForm(link), errors }, 400);
    }
  }

  @Post('/dashboard/links/:code/password/remove')
  async removePassword(
    @Res() reply: FastifyReply,
    @Param('code') code: string,
    @CurrentSession() session: ActiveSession,
  ) {
    await this.links.update(session.accountId, code, { password: null });
    return reply.redirect(`/dashboard/links/${encodeURIComponent(code)}?password=removed`, 303);
  }

  @Post('/dashboard/links/:code/delete')
  async deleteLink(@Res() reply: FastifyReply, @Param('code') code: string, @CurrentSession() session: ActiveSession) {
    try {
      await this.links.remove(session.accountId, code);
    } catch (error) {
      // A second submit of the same delete finds nothing: the outcome the person wanted.
      if (!(error instanceof ApiError && error.errorName === 'not_found')) throw error;
    }
    return reply.redirect('/dashboard?deleted=1', 303);
  }

  // ---- helpers ---------------------------------------------------------------------------

  private async renderDashboard(
    reply: FastifyReply,
    session: ActiveSession,
    page: unknown,
    data: { form: Form; errors: Errors },
    status = 200,
  ) {
    const request = reply.request;
    const pageNumber = typeof page === 'string' && /^\d{1,6}$/.test(page) ? Math.max(1, Number(page)) : 1;
    const query = request.query as Record<string, unknown>;
    // The search box and the tag filter (a tag's link on each row) follow the API's `q` and `tag`
    // rules: what the API would refuse is said next to them, not searched.
    const q = typeof query.q === 'string' ? query.q.trim() : '';
    const tagQuery = typeof query.tag === 'string' ? query.tag.trim() : '';
    const refused = this.links.refusedListFilters({ q: q || undefined, tag: tagQuery || undefined });
    const searchError = refused.has('q') ? `Search for at most ${MAX_SEARCH_LENGTH} characters.` : undefined;
    const search = q !== '' && !searchError ? q : undefined;
    const tagError = refused.has('tag') ? 'That is not a tag: showing all links.' : undefined;
    const tag = tagQuery !== '' && !tagError ? tagQuery.toLowerCase() : undefined;
    const list = await this.links.list(session.accountId, {
      limit: PAGE_SIZE,
      offset: (pageNumber - 1) * PAGE_SIZE,
      q: search,
      tag,
    });
    return this.pages.render(
      reply,
      'dashboard',
      {
        ...data,
        session,
        list,
        page: pageNumber,
        pages: Math.max(1, Math.ceil(list.total / PAGE_SIZE)),
        q,
        search,
        searchError,
        // After "Send again" on the "Check your email" notice (SIGNUP=verify).
        verify: typeof query.verify === 'string' ? query.verify : undefined,
        tag,
        tagError,
        pageQuery: `${search ? `&q=${encodeURIComponent(search)}` : ''}${tag ? `&tag=${encodeURIComponent(tag)}` : ''}`,
        now: Date.now(),
        created: typeof query.created === 'string' ? query.created : undefined,
        deleted: query.deleted === '1',
      },
      status,
    );
  }

  private async renderLink(
    reply: FastifyReply,
    session: ActiveSession,
    link: LinkDto,
    data: { form: Form; errors: Errors },
    status = 200,
  ) {
    const clicks = await this.clicks.linkClicks(session.accountId, link.code, DEFAULT_CLICK_DAYS);
    const query = reply.request.query as Record<string, unknown>;
    return this.pages.render(
      reply,
      'link',
      {
        ...data,
        session,
        link,
        clicks,
        window: DEFAULT_CLICK_DAYS,
        chart: clickChart(clicks.days),
        visitorTables: visitorTables(clicks, clicks.days.reduce((sum, day) => sum + day.clicks, 0) - clicks.bots),
        qr: await qrCodeSvg(link.short_url),
        expired: link.expires_at !== null && Date.parse(link.expires_at) <= Date.now(),
        saved: query.saved === '1',
        passwordSaved: query.password === 'set' || query.password === 'removed' ? query.password : undefined,
        // Wrong passwords tried by visitors, and the lock they put on the link (its owner should know).
        guesses: link.password_protected ? await this.guesses.guessesOn(link.code) : undefined,
      },
      status,
    );
  }
}

/** The link page's edit form, filled with the link as it is. */
function linkForm(link: LinkDto): Form {
  return {
    url: link.url,
    expires_at: expiryForForm(link.expires_at),
    tags: tagsForForm(link.tags),
    ios_url: link.ios_url ?? '',
    android_url: link.android_url ?? '',
  };
}

/**
 * A device target field as the API's `ios_url`/`android_url`: undefined when it shows what the
 * link has, null when emptied (the device goes to the URL), else the URL for the service to check.
 */
function deviceUrlFromForm(value: string, current: string | null): string | null | undefined {
  const trimmed = value.trim();
  if (trimmed === (current ?? '')) return undefined;
  return trimmed === '' ? null : trimmed;
}
