import { ApiSchema } from '@nestjs/swagger';
import { IsString } from 'class-validator';

/** Body of `PUT /api/links/{code}`: the new target. */
@ApiSchema({ name: 'UpdateLinkRequest' })
export class UpdateLinkDto {
  /**
   * The new target, with the same rules as on creation.
   * @example "https://example.com/new-target"
   */
  @IsString()
  url!: string;
}
