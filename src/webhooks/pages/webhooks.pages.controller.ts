import { Get, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentSession, SignedIn } from '../../auth/auth.decorators.js';
import type { ActiveSession } from '../../auth/sessions/sessions.service.js';
import { PageController } from '../../pages/page-controller.decorator.js';
import { Pages, field, fieldList, formErrors, type Form } from '../../pages/pages.js';
import { isWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent } from '../webhook-events.js';
import { MAX_WEBHOOKS_PER_ACCOUNT, WebhooksService } from '../webhooks.service.js';

/** The form's fields as the page labels them in messages; '' is the form as a whole. */
const WEBHOOK_FIELDS = { url: 'The URL', events: 'Events', '': '' };
/** Deliveries shown per webhook. */
const RECENT_DELIVERIES = 10;

/** What each event means, next to its checkbox. */
const EVENT_HINTS: Record<WebhookEvent, string> = {
  'link.created': 'a link was created (API, bulk, this dashboard, CSV import)',
  'link.updated': 'a link’s target or expiry was changed',
  'link.deleted': 'a link was deleted',
  'link.clicked': 'a summary of a link’s clicks, at most one per link per interval',
};

/** The account's webhooks: add one (its secret shown once), recent deliveries, send a test, delete. */
@PageController()
@SignedIn()
export class WebhooksPagesController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly pages: Pages,
  ) {}

  @Get('/dashboard/webhooks')
  webhooksPage(@Res() reply: FastifyReply, @CurrentSession() session: ActiveSession) {
    return this.renderWebhooks(reply, session, { form: { events: [...WEBHOOK_EVENTS] }, errors: {} });
  }

  @Post('/dashboard/webhooks')
  async addWebhook(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession,
  ) {
    const form = request.body as Form;
    const url = field(form, 'url', 4096);
    const events = fieldList(form, 'events').filter(isWebhookEvent);
    try {
      const created = await this.webhooks.create(session.accountId, { url, events });
      // Shown on this response only: a reload or the list never shows it again.
      void reply.header('Cache-Control', 'no-store');
      return this.renderWebhooks(reply, session, { form: { events: [...WEBHOOK_EVENTS] }, errors: {}, created }, 201);
    } catch (error) {
      const errors = formErrors(error, WEBHOOK_FIELDS);
      return this.renderWebhooks(reply, session, { form: { url: url.trim(), events }, errors }, 400);
    }
  }

  @Post('/dashboard/webhooks/:id/test')
  async sendTest(@Param('id') id: string, @Res() reply: FastifyReply, @CurrentSession() session: ActiveSession) {
    await this.webhooks.sendTest(session.accountId, id);
    return reply.redirect(`/dashboard/webhooks?tested=${encodeURIComponent(id)}`, 303);
  }

  @Post('/dashboard/webhooks/:id/delete')
  async deleteWebhook(@Param('id') id: string, @Res() reply: FastifyReply, @CurrentSession() session: ActiveSession) {
    await this.webhooks.remove(session.accountId, id);
    return reply.redirect('/dashboard/webhooks?deleted=1', 303);
  }

  private async renderWebhooks(reply: FastifyReply, session: ActiveSession, data: object, status = 200) {
    const webhooks = await this.webhooks.list(session.accountId);
    const withDeliveries = await Promise.all(
      webhooks.map(async (webhook) => ({
        ...webhook,
        deliveries: await this.webhooks.deliveries(session.accountId, webhook.id, RECENT_DELIVERIES),
      })),
    );
    const query = reply.request.query as Record<string, unknown>;
    return this.pages.render(
      reply,
      'webhooks',
      {
        ...data,
        session,
        webhooks: withDeliveries,
        events: WEBHOOK_EVENTS.map((event) => ({ name: event, hint: EVENT_HINTS[event] })),
        max: MAX_WEBHOOKS_PER_ACCOUNT,
        deleted: query.deleted === '1',
        tested: typeof query.tested === 'string' ? query.tested : undefined,
      },
      status,
    );
  }
}
