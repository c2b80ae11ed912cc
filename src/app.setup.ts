import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { ProblemDetailsFilter } from './common/errors/problem-details.filter.js';
import { createValidationPipe } from './common/validation/validation.pipe.js';
import { buildOpenApiDocument } from './openapi/openapi.document.js';

/**
 * Everything an application needs beyond its modules: shared by main.ts, the tests and the
 * scripts, so they all run exactly the same pipeline.
 */
export function configureApp(app: NestFastifyApplication): NestFastifyApplication {
  app.useLogger(app.get(Logger));
  app.useGlobalPipes(createValidationPipe());
  // Nest also routes Fastify's own request errors (bad JSON, body too large, wrong media type)
  // through this filter, so every error has the same problem-details shape.
  app.useGlobalFilters(new ProblemDetailsFilter());

  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });

  app.enableShutdownHooks();
  return app;
}
