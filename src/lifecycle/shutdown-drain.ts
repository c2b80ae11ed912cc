import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';

/**
 * The first step of a graceful shutdown. A load balancer only stops routing to an instance
 * after its readiness probe has failed (a few checks, seconds apart); an instance that closed
 * its listener at once would refuse the connections still sent its way meanwhile. So on
 * SIGTERM/SIGINT the instance first reports itself not ready (`GET /health/ready` answers 503)
 * and keeps serving everything for `SHUTDOWN_DELAY_MS`; only then does Nest close the HTTP server
 * (finishing in-flight requests), flush clicks and close the database.
 *
 * Nest runs `beforeApplicationShutdown` hooks while the server still listens, and awaits them
 * before closing it. The delay applies to shutdowns by signal only: an `app.close()` from code
 * (tests, the OpenAPI generator) has no load balancer to wait for.
 */
@Injectable()
export class ShutdownDrain implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ShutdownDrain.name);
  private stopping = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** True from the start of the shutdown on: readiness fails so load balancers stop routing here. */
  get draining(): boolean {
    return this.stopping;
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    this.stopping = true;
    const delay = this.config.shutdownDelayMs;
    if (!signal || delay === 0) return;
    this.logger.log(`${signal}: not ready; serving for ${delay} ms more before closing`);
    await sleep(delay);
  }
}
