import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';

/** The machine's shared Redis, for specs that only need one that is up. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A throw-away redis-server of the spec's own, on a free port, that the spec can stop and
 * start again (to test what happens when Redis goes away). Nothing is persisted.
 */
export class OwnRedisServer {
  private process?: ChildProcess;

  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<OwnRedisServer> {
    const server = new OwnRedisServer(await freePort());
    await server.resume();
    return server;
  }

  /** Starts (again) on the same port and waits until it answers PING. */
  async resume(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    this.process = child;
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server on port ${this.port} exited with ${child.exitCode}`);
      const probe = new Redis(this.url, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
        // A refused socket never reports 'close' to the disconnect timer: keep it short.
        disconnectTimeout: 50,
      });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        await probe.ping();
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        probe.disconnect();
      }
    }
  }

  /** Kills the server at once (SIGKILL: like a crash, clients see the connection drop). */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.process = undefined;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}
