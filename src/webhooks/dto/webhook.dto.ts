import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../webhook-events.js';

/** A webhook endpoint as the API returns it (its secret only when it is created). */
@ApiSchema({ name: 'Webhook' })
export class WebhookDto {
  /**
   * The webhook's id.
   * @example "0b6f1f5e-8a4c-4c52-9f43-2d1a6c1e9b7d"
   */
  id!: string;

  /**
   * Where messages are posted.
   * @example "https://hooks.example.com/shortlink"
   */
  @ApiProperty({ format: 'uri' })
  url!: string;

  /**
   * The events it receives.
   * @example ["link.created", "link.updated", "link.deleted", "link.clicked"]
   */
  @ApiProperty({ enum: WEBHOOK_EVENTS, enumName: 'WebhookEvent', isArray: true })
  events!: WebhookEvent[];

  /**
   * When it was added (ISO 8601, UTC).
   * @example "2026-11-26T09:00:00.000Z"
   */
  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  /**
   * When it was disabled, after 5 days without a delivery while messages failed; null while it
   * is enabled. A disabled webhook gets no more attempts.
   * @example null
   */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  disabled_at!: string | null;

  /**
   * When a message was last delivered to it; null before the first.
   * @example "2026-11-26T09:00:05.000Z"
   */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  last_delivered_at!: string | null;

  /**
   * When an attempt to it last failed; null if none has.
   * @example null
   */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  last_failed_at!: string | null;
}

/** A webhook just added, with its signing secret: shown in this answer only. */
@ApiSchema({ name: 'CreatedWebhook' })
export class CreatedWebhookDto extends WebhookDto {
  /**
   * The signing secret: `whsec_` + base64 of 32 random bytes. Messages are signed with it as
   * Standard Webhooks says (`webhook-signature`); verify them with any Standard Webhooks library.
   * Shown only in this answer: store it now.
   * @example "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3XnJp1Y5pL0="
   */
  secret!: string;
}

/** The account's webhooks, oldest first. */
@ApiSchema({ name: 'WebhookList' })
export class WebhookListDto {
  data!: WebhookDto[];
}
