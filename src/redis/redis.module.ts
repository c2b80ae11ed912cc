import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { closeRedisConnection, createRedisConnection } from './redis.connection.js';
import { REDIS_CLIENT, REDIS_SUBSCRIBER } from './redis.tokens.js';

/**
 * The two Redis connections every instance shares its state through when REDIS_URL is set
 * (both providers are `null` otherwise, and the service keeps all state in memory). Start-up
 * never waits for Redis: an instance whose Redis is down serves anyway and catches up later.
 */
@Global()
@Module({
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig): Promise<Redis | null> =>
        config.redisUrl ? createRedisConnection(config.redisUrl, 'commands') : null,
    },
    {
      provide: REDIS_SUBSCRIBER,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig): Promise<Redis | null> =>
        config.redisUrl ? createRedisConnection(config.redisUrl, 'subscriber') : null,
    },
  ],
  exports: [REDIS_CLIENT, REDIS_SUBSCRIBER],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS_CLIENT) private readonly client: Redis | null,
    @Inject(REDIS_SUBSCRIBER) private readonly subscriber: Redis | null,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.client, this.subscriber].flatMap((redis) => (redis ? [closeRedisConnection(redis)] : [])));
  }
}
