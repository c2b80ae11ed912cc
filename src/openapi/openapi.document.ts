import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { API_KEY_SCHEME, BEARER_SCHEME } from '../auth/auth.decorators.js';

/** Sorts object keys recursively so the committed document diffs cleanly. */
export function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeys) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    ) as T;
  }
  return value;
}

/** The OpenAPI document, generated from the controllers' decorators. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('shortlink')
    .setDescription('Self-hostable short-link service: create, list, update and delete short links.')
    .setVersion('1.0.0')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'API token from the dashboard' }, API_KEY_SCHEME)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'API token from the dashboard' }, BEARER_SCHEME)
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_controllerKey: string, methodKey: string) => methodKey,
  });
  return sortKeys(document);
}
