import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { ProblemDetailsFilter } from './common/errors/problem-details.filter.js';
import { createValidationPipe } from './common/validation/validation.pipe.js';
import { setupOpenApi } from './openapi/openapi.document.js';

/**
 * Everything an application needs beyond its modules: shared by main.ts, the tests and the
 * scripts, so they all run exactly the same pipeline.
 */
export async function configureApp(app: NestFastifyApplication): Promise<NestFastifyApplication> {
  app.useLogger(app.get(Logger));
  app.useGlobalPipes(createValidationPipe());
  // Nest also routes Fastify's own request errors (bad JSON, body too large, wrong media type)
  // through this filter, so every error has the same problem-details shape.
  app.useGlobalFilters(new ProblemDetailsFilter());

  // Swagger UI at /docs and the document at /openapi.json.
  await setupOpenApi(app);

  // On SIGTERM/SIGINT: stop accepting, finish in-flight requests, run the shutdown hooks (click
  // flush, database close), then exit 0. Without useProcessExit Nest re-raises the signal, so the
  // process would die "killed by SIGTERM" (status 143) and pino could lose its last lines.
  app.enableShutdownHooks([], { useProcessExit: true });
  return app;
}
