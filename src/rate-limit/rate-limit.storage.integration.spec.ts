import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { OwnRedisServer, TEST_REDIS_URL } from '../../test/support/processes/redis-server.js';
import { closeRedisConnection, createRedisConnection } from '../redis/redis.connection.js';
import { RateLimitStorage } from './rate-limit.storage.js';
import { until } from '../../test/support/eventually.js';

const silent = { warn: () => undefined, log: () => undefined } as unknown as Logger;

function uniqueKey(): string {
  return `shortlink:test:${randomBytes(6).toString('hex')}`;
}

describe('RateLimitStorage', () => {
  describe('with Redis', () => {
    const connections: Redis[] = [];
    const connect = async () => {
      const redis = await createRedisConnection(TEST_REDIS_URL, 'commands', silent);
      connections.push(redis);
      await until(() => redis.status === 'ready');
      return redis;
    };

    afterAll(() => Promise.all(connections.map(closeRedisConnection)));

    it('counts hits from several instances in one counter, atomically', async () => {
      const instances = [new RateLimitStorage(await connect()), new RateLimitStorage(await connect())];
      const key = uniqueKey();

      const records = await Promise.all(
        Array.from({ length: 40 }, (_, index) => instances[index % 2].increment(key, 60_000, 100)),
      );

      expect(records.map((record) => record.totalHits).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 40 }, (_, index) => index + 1),
      );
    });

    it('blocks over the limit until the window resets, and reports whole seconds', async () => {
      const sut = new RateLimitStorage(await connect());
      const key = uniqueKey();

      for (let hit = 1; hit <= 3; hit++) {
        expect(await sut.increment(key, 60_000, 3)).toMatchObject({
          totalHits: hit,
          isBlocked: false,
          timeToBlockExpire: 0,
        });
      }
      const blocked = await sut.increment(key, 60_000, 3);

      expect(blocked).toMatchObject({ totalHits: 4, isBlocked: true });
      expect(blocked.timeToExpire).toBeGreaterThanOrEqual(59);
      expect(blocked.timeToExpire).toBeLessThanOrEqual(60);
      expect(blocked.timeToBlockExpire).toBe(blocked.timeToExpire);
    });

    it('gives the counter the window as expiry, so it starts over afterwards', async () => {
      const redis = await connect();
      const sut = new RateLimitStorage(redis);
      const key = uniqueKey();

      await sut.increment(key, 300, 1);
      expect(await redis.pttl(key)).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 350));

      expect(await sut.increment(key, 300, 1)).toMatchObject({ totalHits: 1, isBlocked: false });
    });
  });

  describe('when Redis goes away', () => {
    let server: OwnRedisServer;
    let redis: Redis;
    const warnings: string[] = [];
    const logs: string[] = [];
    const logger = {
      warn: (message: string) => void warnings.push(message),
      log: (message: string) => void logs.push(message),
    };

    beforeAll(async () => {
      server = await OwnRedisServer.start();
      redis = await createRedisConnection(server.url, 'commands', silent);
      await until(() => redis.status === 'ready');
    });

    afterAll(async () => {
      await closeRedisConnection(redis);
      await server.stop();
    });

    it('keeps counting per instance, warns once, and shares counters again once Redis is back', async () => {
      const sut = new RateLimitStorage(redis, logger);
      const key = uniqueKey();
      expect(await sut.increment(key, 60_000, 10)).toMatchObject({ totalHits: 1 });

      await server.stop();
      await until(() => redis.status !== 'ready');
      const started = Date.now();
      const whileDown = [];
      for (let hit = 0; hit < 3; hit++) whileDown.push(await sut.increment(key, 60_000, 10));

      // Fresh per-instance counters, answered without waiting for Redis.
      expect(whileDown.map((record) => record.totalHits)).toEqual([1, 2, 3]);
      expect(Date.now() - started).toBeLessThan(200);
      expect(warnings.filter((message) => message.includes('rate limits are counted per instance'))).toHaveLength(1);

      await server.resume();
      await until(() => redis.status === 'ready');
      // The new Redis is empty (nothing persisted): the shared counter starts again.
      expect(await sut.increment(key, 60_000, 10)).toMatchObject({ totalHits: 1 });
      expect(await redis.get(key)).toBe('1');
      expect(logs.filter((message) => message.includes('shared by all instances again'))).toHaveLength(1);
    });
  });

  describe('without Redis', () => {
    it('counts in memory with the same window semantics', async () => {
      const sut = new RateLimitStorage(null);
      const key = uniqueKey();

      await sut.increment(key, 60_000, 1);
      const blocked = await sut.increment(key, 60_000, 1);

      expect(blocked).toMatchObject({ totalHits: 2, isBlocked: true, timeToExpire: 60, timeToBlockExpire: 60 });
    });
  });
});
