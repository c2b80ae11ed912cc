import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoLogger } from 'nestjs-pino';
import type { AppConfig } from '../../config/app-config.js';
import { ServiceCounters } from '../../metrics/service-counters.js';
import { WORKER_PROCESS_DELIVERY } from '../delivery/delivery-options.js';
import { WebhookDispatcher } from '../delivery/webhook-dispatcher.js';
import { WebhookWorkerModule } from './webhook-worker.module.js';

/** How often a running worker writes a line about what it did, when it did anything. */
const REPORT_INTERVAL_MS = 60_000;

/** Resolves with the first SIGTERM or SIGINT; a second one is Node's default (the process ends at once). */
export function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve(signal);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

/**
 * Runs the delivery worker alone until `stop` resolves (`shortlink webhooks worker`), then stops
 * it as an instance stops its own: no new claims, queued messages released, attempts under way
 * given a few seconds and the rest cut off and released (WebhookDispatcher), connections closed.
 * The database must be prepared (migrated) before.
 */
export async function runWebhookWorker(config: AppConfig, stop: Promise<string>): Promise<void> {
  const context = await NestFactory.createApplicationContext(WebhookWorkerModule.forRoot(config), {
    bufferLogs: true,
    abortOnError: false,
  });
  context.useLogger(context.get(PinoLogger));
  const logger = new Logger('WebhookWorker');
  logger.log(
    `Delivering the webhook messages of the ${config.databaseKind} database (due messages looked for every ${WORKER_PROCESS_DELIVERY.pollIntervalMs} ms); SIGTERM or SIGINT stops it`,
  );
  const dispatcher = context.get(WebhookDispatcher);
  const counters = context.get(ServiceCounters);
  const report = reporter(counters, dispatcher, logger);
  const timer = setInterval(report, REPORT_INTERVAL_MS);
  try {
    const signal = await stop;
    logger.log(`${signal}: stopping (messages held are released for the next worker)`);
  } finally {
    clearInterval(timer);
    await context.close();
    report();
    logger.log('Stopped');
  }
}

/** A line with the attempts made since the last one; nothing when there were none. */
function reporter(counters: ServiceCounters, dispatcher: WebhookDispatcher, logger: Logger): () => void {
  let last = { delivered: 0, retried: 0, failed: 0 };
  return () => {
    const now = {
      delivered: counters.webhooksDelivered,
      retried: counters.webhooksRetried,
      failed: counters.webhooksFailed,
    };
    const delivered = now.delivered - last.delivered;
    const retried = now.retried - last.retried;
    const failed = now.failed - last.failed;
    last = now;
    if (delivered + retried + failed === 0) return;
    logger.log(
      `${delivered} delivered, ${retried} to be retried, ${failed} failed for good since the last report; ${dispatcher.attemptsInFlight} attempts under way`,
    );
  };
}
