import { createServer } from 'node:net';

/**
 * Ports this process has handed out. The kernel may give the same free port twice in a row once
 * it is closed again, and a spec that asks for two (its app's, then a fake provider's) before
 * binding either would then see EADDRINUSE; a port is never handed out twice here.
 */
const handedOut = new Set<number>();

/**
 * A free TCP port on the loopback interface, never one this process was given before (the tiny
 * race with other processes until it is bound again is acceptable in tests).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await anyFreePort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

async function anyFreePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
