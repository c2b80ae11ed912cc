import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

/** Body of `PUT /api/links/{code}`: the new target, the new expiry, or both. */
@ApiSchema({ name: 'UpdateLinkRequest' })
export class UpdateLinkDto {
  /**
   * The new target, with the same rules as on creation.
   * @example "https://example.com/new-target"
   */
  @IsOptional()
  @IsString()
  url?: string;

  /**
   * The new expiry (ISO 8601 with a time zone, in the future), or `null` to remove it. Left
   * out: unchanged.
   * @example "2027-01-31T23:59:59Z"
   */
  @ApiPropertyOptional({ type: 'string', format: 'date-time', nullable: true })
  @IsOptional()
  expires_at?: string | null;
}
