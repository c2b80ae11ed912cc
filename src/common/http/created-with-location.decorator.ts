import type { Type } from '@nestjs/common';
import { ApiCreatedResponse } from '@nestjs/swagger';

/**
 * The 201 of an operation that creates a resource, with the `Location` header where it can be
 * read: `@ApiCreatedWithLocation(LinkDto, 'The link was created.', 'link', '/api/links/{code}',
 * '/api/links/Ab3dE9x')`. The handler sets the header itself.
 */
export function ApiCreatedWithLocation(
  type: Type<unknown>,
  description: string,
  resource: string,
  path: string,
  example: string,
): MethodDecorator & ClassDecorator {
  return ApiCreatedResponse({
    type,
    description,
    headers: {
      Location: {
        description: `Where the new ${resource} can be read: \`${path}\``,
        schema: { type: 'string', example },
      },
    },
  });
}
