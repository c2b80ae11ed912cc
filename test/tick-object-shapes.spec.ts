import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from './support/eventually.js';
import { startServerProcess, type ServerProcess } from './support/processes/server-process.js';

const PROBE = fileURLToPath(new URL('./support/probes/tick-object-probe.mjs', import.meta.url));
const CONNECTIONS = 10;

/** The state of each feedback slot V8 keeps for the tick object literal in `nextTick`, as the probe printed it. */
function tickLiteralFeedback(stdout: string): string[] {
  return [...stdout.matchAll(/slot #\d+ DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((match) => match[1]);
}

/**
 * src/tick-object-shapes.ts. The real server, from source: cached redirects, then a full garbage
 * collection while it is idle (no tick object alive), three times, then more redirects. Without the kept tick
 * object the collection took V8's maps of tick objects, `nextTick`'s feedback for their literal
 * turned megamorphic, and every later tick object was built by V8's runtime.
 */
describe('the tick objects of a request', () => {
  let dir: string;
  let server: ServerProcess | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'shortlink-tick-objects-'));
  });

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('are still built inline after a full collection while the server is idle: every slot of their literal monomorphic', async () => {
    server = await startServerProcess({
      DATABASE_URL: `file:${join(dir, 'shortlink.db')}`,
      NODE_OPTIONS: `--import ${PROBE}`,
      LOG_LEVEL: 'warn',
    });
    const created = await fetch(`${server.baseUrl}/api/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/tick-objects' }),
    });
    expect(created.status).toBe(201);
    const { code } = (await created.json()) as { code: string };
    const redirects = async (amount: number) => {
      const url = `${server!.baseUrl}/${code}`;
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          for (let i = 0; i < amount / CONNECTIONS; i++) {
            const response = await fetch(url, { redirect: 'manual' });
            expect(response.status).toBe(302);
          }
        }),
      );
    };

    // Each collection could find a tick object alive by chance: three of them.
    for (let round = 1; round <= 3; round++) {
      await redirects(1_000);
      server.child.kill('SIGURG');
      await until(() => server!.output().stdout.includes(`collected ${round}\n`));
    }
    await redirects(1_000);
    // Asked again until a whole description has come through C's stdout (see the probe). One slot a
    // property: four on Node.js 20 (the two symbol keys, callback and args), five on 22.
    await until(() => {
      server!.child.kill('SIGWINCH');
      return tickLiteralFeedback(server!.output().stdout).length >= 4;
    });

    const slots = tickLiteralFeedback(server.output().stdout);
    expect(slots.filter((state) => state !== 'MONOMORPHIC')).toEqual([]);
  }, 120_000);
});
