import { Logger } from '@nestjs/common';
import type { Redis, RedisOptions } from 'ioredis';

export type RedisRole = 'commands' | 'subscriber';

/**
 * Options chosen so that a dead or hung Redis costs a request at most a few hundred
 * milliseconds: commands fail at once while disconnected (no offline queue, no retries) and the
 * callers fall back to per-instance behaviour. The client keeps reconnecting in the background.
 */
function redisOptions(role: RedisRole): RedisOptions {
  return {
    connectionName: `shortlink-${role}`,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    commandTimeout: 500,
    // Subscriptions are renewed by their owner once the connection is ready again, so that it
    // knows exactly when it can trust its subscriptions (see link-invalidation.bus.ts).
    autoResubscribe: false,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
  };
}

/**
 * Opens a connection that logs its loss once (warn) and its recovery once, instead of one line
 * per reconnection attempt. ioredis is loaded here, the first time a connection is opened, not
 * with this module: an instance without REDIS_URL (the default) never loads it, 1.1 MB less heap
 * (docs/performance.md, "Memory").
 */
export async function createRedisConnection(
  url: string,
  role: RedisRole,
  logger = new Logger('Redis'),
): Promise<Redis> {
  const { Redis: RedisClient } = await import('ioredis');
  const redis = new RedisClient(url, redisOptions(role));
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger.warn(`Redis (${role} connection) is unavailable: ${error.message}; retrying in the background`);
  });
  redis.on('close', () => {
    if (down || redis.status === 'end') return;
    down = true;
    logger.warn(`Redis (${role} connection) closed; reconnecting in the background`);
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.log(`Redis (${role} connection) is available again`);
  });
  return redis;
}

/** Closes a connection politely when possible, at once otherwise (never hangs a shutdown). */
export async function closeRedisConnection(redis: Redis): Promise<void> {
  if (redis.status === 'ready') {
    try {
      await redis.quit();
      return;
    } catch {
      // Fall through: the connection broke while quitting.
    }
  }
  redis.disconnect();
}
