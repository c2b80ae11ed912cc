import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn, IsOptional, IsString } from 'class-validator';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../webhook-events.js';

/** Body of `POST /api/webhooks`. */
@ApiSchema({ name: 'CreateWebhookRequest' })
export class CreateWebhookDto {
  /**
   * Where messages are posted: an absolute http:// or https:// URL of at most 2048 characters,
   * without user info, whose host is not (and does not resolve to) a loopback, private,
   * link-local, unique-local or unspecified address.
   * @example "https://hooks.example.com/shortlink"
   */
  @IsString()
  url!: string;

  /**
   * The events to send; all of them when left out.
   * @example ["link.created", "link.deleted"]
   */
  @ApiPropertyOptional({ enum: WEBHOOK_EVENTS, enumName: 'WebhookEvent', isArray: true, minItems: 1 })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENTS.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENTS, { each: true })
  events?: WebhookEvent[];
}
