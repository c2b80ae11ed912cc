import { Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { AppConfig } from '../../config/app-config.js';
import { ConfigModule } from '../../config/config.module.js';
import { DatabaseModule } from '../../database/database.module.js';
import { loggerOptions } from '../../logging/logger.options.js';
import { MetricsModule } from '../../metrics/metrics.module.js';
import { WORKER_PROCESS_DELIVERY } from '../delivery/delivery-options.js';
import { WebhookDeliveryModule } from '../delivery/webhook-delivery.module.js';

/**
 * `shortlink webhooks worker`: the delivery worker alone, on the configured database, with the
 * service's logger and (with METRICS_PORT) its Prometheus endpoint; no HTTP server, no links,
 * no clicks.
 */
@Module({})
export class WebhookWorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WebhookWorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(loggerOptions(config)),
        DatabaseModule,
        MetricsModule,
        WebhookDeliveryModule.forRoot(WORKER_PROCESS_DELIVERY),
      ],
    };
  }
}
