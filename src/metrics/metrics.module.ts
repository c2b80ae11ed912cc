import { Global, Module } from '@nestjs/common';
import { MetricsServer } from './metrics.server.js';
import { ServiceCounters } from './service-counters.js';

/** Counters for every feature (global), and the Prometheus endpoint on METRICS_PORT. */
@Global()
@Module({ providers: [ServiceCounters, MetricsServer], exports: [ServiceCounters] })
export class MetricsModule {}
