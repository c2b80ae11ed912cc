import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './free-port.js';

/**
 * A TCP proxy in front of a real server (e.g. PostgreSQL) that a spec can cut and restore, to
 * see what the service does when its database goes away without stopping the shared one.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(await freePort(), target);
    await proxy.restore();
    return proxy;
  }

  /** Listens (again): new connections reach the target. */
  async restore(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
  }

  /** Drops every open connection and refuses new ones, like a database that went down. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
