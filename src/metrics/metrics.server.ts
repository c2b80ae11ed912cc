import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { ClickCounter } from '../clicks/click-counter.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { MetricsRegistry } from './metrics.registry.js';
import { ServiceCounters } from './service-counters.js';

/**
 * `GET /metrics` in Prometheus's text format, on METRICS_PORT only: a server of its own, so the
 * metrics are never reachable through the public port (and a link cannot be named `metrics`
 * away from anyone). Without METRICS_PORT nothing is registered and nothing listens; the hot
 * paths' plain counters (ServiceCounters) cost the same either way.
 */
@Injectable()
export class MetricsServer implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: Server;
  private metrics?: MetricsRegistry;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly counters: ServiceCounters,
    private readonly moduleRef: ModuleRef,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** The port it listens on (METRICS_PORT=0 picks a free one), or undefined when off. */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  // Fastify's hooks must be added before it is ready: here, not at bootstrap.
  onModuleInit(): void {
    if (this.config.metricsPort === undefined) return;
    const clicks = this.clickCounter();
    this.metrics = new MetricsRegistry(this.counters, () => clicks?.pendingTotal() ?? 0);
    this.countRequests(this.metrics);
  }

  async onApplicationBootstrap(): Promise<void> {
    const metrics = this.metrics;
    if (this.config.metricsPort === undefined || !metrics) return;
    const server = createServer((request, response) => {
      const path = (request.url ?? '').split('?', 1)[0];
      if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
        response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: GET /metrics\n');
        return;
      }
      metrics.registry.metrics().then(
        (text) => {
          response.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
          response.end(request.method === 'HEAD' ? undefined : text);
        },
        (error: unknown) => {
          this.logger.error(`Could not collect metrics: ${String(error)}`);
          response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Could not collect metrics\n');
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.metricsPort, this.config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.logger.log(`Prometheus metrics on http://${this.config.host}:${this.port}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The click counter; none in `shortlink webhooks worker`, which counts no clicks. */
  private clickCounter(): ClickCounter | undefined {
    try {
      return this.moduleRef.get(ClickCounter, { strict: false });
    } catch {
      return undefined;
    }
  }

  /** Every request that reaches Fastify, counted and timed when its answer has been sent. */
  private countRequests(metrics: MetricsRegistry): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    fastify.addHook('onResponse', (request, reply, done) => {
      metrics.observeRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }
}
