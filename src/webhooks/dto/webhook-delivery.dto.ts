import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One message to a webhook and how its delivery went. */
@ApiSchema({ name: 'WebhookDelivery' })
export class WebhookDeliveryDto {
  /**
   * The delivery's id.
   * @example "5d3c0f7e-2b1a-4f4e-8a55-0f6f3c2f9e10"
   */
  id!: string;

  /**
   * The message's type: an event, or `webhook.test`.
   * @example "link.created"
   */
  event!: string;

  /**
   * The `webhook-id` header the message is sent with, the same on every attempt: a receiver
   * dedupes by it.
   * @example "msg_3f9a0c1d2e4b5a6978c8d7e6f5a4b3c2"
   */
  message_id!: string;

  /**
   * `pending` until a 2xx answer (`delivered`) or the last retry failed (`failed`).
   * @example "delivered"
   */
  @ApiProperty({ enum: DELIVERY_STATUSES, enumName: 'WebhookDeliveryStatus' })
  status!: DeliveryStatus;

  /**
   * Attempts made so far, every try counted.
   * @example 1
   */
  @ApiProperty({ type: 'integer', minimum: 0 })
  attempts!: number;

  /**
   * The HTTP status of the last attempt's answer; null before the first attempt and when there
   * was no answer (timeout, connection refused or closed, forbidden address).
   * @example 200
   */
  @ApiProperty({ type: 'integer', nullable: true })
  response_status!: number | null;

  /**
   * When the last attempt was made; null before the first.
   * @example "2026-11-26T09:00:05.000Z"
   */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  last_attempt_at!: string | null;

  /**
   * When the next attempt is due; null once delivered or failed.
   * @example null
   */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  next_attempt_at!: string | null;
}

/** A webhook's most recent deliveries, newest first. */
@ApiSchema({ name: 'WebhookDeliveryList' })
export class WebhookDeliveryListDto {
  data!: WebhookDeliveryDto[];
}

export const DEFAULT_DELIVERIES = 50;
export const MAX_DELIVERIES = 100;

/** `?limit=` of `GET /api/webhooks/{id}/deliveries`. */
export class ListDeliveriesQueryDto {
  /**
   * How many of the most recent deliveries, 1 to 100.
   * @example 50
   */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_DELIVERIES, default: DEFAULT_DELIVERIES })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value,
  )
  @IsInt()
  @Min(1)
  @Max(MAX_DELIVERIES)
  limit?: number;
}
