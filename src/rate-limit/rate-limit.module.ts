import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import type { Redis } from 'ioredis';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { REDIS_CLIENT } from '../redis/redis.tokens.js';
import { bucketLimit, RateLimitGuard } from './rate-limit.guard.js';
import { RateLimitStorage } from './rate-limit.storage.js';

/**
 * Rate limits of the contract (RATE_LIMIT_*): per client IP on anonymous creating calls, per
 * token on `/api/*`, shared through Redis when REDIS_URL is set.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG, REDIS_CLIENT],
      useFactory: (config: AppConfig, redis: Redis | null) => ({
        // One throttler named `default`, so the headers carry no throttler-name suffix.
        throttlers: [{ name: 'default', ttl: config.rateLimit.windowSeconds * 1000, limit: bucketLimit }],
        storage: new RateLimitStorage(redis),
      }),
    }),
  ],
  providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
})
export class RateLimitModule {}
