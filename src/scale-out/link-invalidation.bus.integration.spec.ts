import type { Redis } from 'ioredis';
import { OwnRedisServer } from '../../test/support/processes/redis-server.js';
import { loadConfig } from '../config/app-config.js';
import { LinkCache } from '../links/link-cache.js';
import { closeRedisConnection, createRedisConnection } from '../redis/redis.connection.js';
import { LinkInvalidationBus } from './link-invalidation.bus.js';
import { until } from '../../test/support/eventually.js';

const silent = { warn: () => undefined, log: () => undefined } as never;

/** One instance's side: its cache and its bus on connections of its own. */
async function instance(url: string) {
  const cache = new LinkCache(loadConfig({}));
  const publisher = await createRedisConnection(url, 'commands', silent);
  const subscriber = await createRedisConnection(url, 'subscriber', silent);
  const sut = new LinkInvalidationBus(cache, publisher, subscriber);
  await sut.onModuleInit();
  const self = { cache, sut, connections: [publisher, subscriber] as Redis[] };
  // Start-up gives up waiting after 2 s; a loaded CI machine can take longer than that.
  await until(() => canHearAndTell(self));
  return self;
}

/** Subscribed to invalidations, and able to publish its own. */
function canHearAndTell(side: { sut: LinkInvalidationBus; connections: Redis[] }): boolean {
  return side.sut.isListening && side.connections[0].status === 'ready';
}

describe('LinkInvalidationBus', () => {
  let server: OwnRedisServer;
  let a: Awaited<ReturnType<typeof instance>>;
  let b: Awaited<ReturnType<typeof instance>>;

  beforeAll(async () => {
    server = await OwnRedisServer.start();
    [a, b] = await Promise.all([instance(server.url), instance(server.url)]);
  });

  afterAll(async () => {
    a.sut.onApplicationShutdown();
    b.sut.onApplicationShutdown();
    await Promise.all([...a.connections, ...b.connections].map(closeRedisConnection));
    await server.stop();
  });

  it('has every instance drop the code before the change is answered', async () => {
    b.cache.setIfUnchanged('abc', 'https://old.example/', b.cache.generation());
    expect(b.cache.get('abc')).toBe('https://old.example/');

    // What LinksService does before answering a PUT or DELETE.
    await a.cache.invalidate('abc');

    expect(b.cache.get('abc')).toBeUndefined();
  });

  it('suspends the cache while invalidations cannot be heard, and starts it empty again', async () => {
    b.cache.setIfUnchanged('kept', 'https://kept.example/', b.cache.generation());

    await server.stop();
    await until(() => !b.sut.isListening);

    expect(b.cache.get('kept')).toBeUndefined();
    b.cache.setIfUnchanged('during', 'https://during.example/', b.cache.generation());
    expect(b.cache.get('during')).toBeUndefined();
    // A change made now cannot be published; it must not fail, and is published later.
    await a.cache.invalidate('changed-while-down');

    await server.resume();
    await until(() => canHearAndTell(a) && canHearAndTell(b));

    expect(b.cache.get('kept')).toBeUndefined();
    b.cache.setIfUnchanged('after', 'https://after.example/', b.cache.generation());
    expect(b.cache.get('after')).toBe('https://after.example/');
    await a.cache.invalidate('after');
    expect(b.cache.get('after')).toBeUndefined();
  });
});
