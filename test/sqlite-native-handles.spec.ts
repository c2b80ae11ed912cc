import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PROBE = fileURLToPath(new URL('./support/probes/sqlite-handles-probe.mjs', import.meta.url));

/**
 * The abort that kept the service off Node.js 24 (better-sqlite3 12 under 24's headers, see the
 * probe). It runs on every Node.js of .ci/run (24 in npm test; 22 and 26 in their steps): the node
 * running this spec is the one checked.
 */
describe('better-sqlite3 handles freed by the garbage collector and by thread teardown', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'shortlink-sqlite-handles-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it(`never abort the process (Node.js ${process.versions.node})`, () => {
    const run = spawnSync(process.execPath, ['--expose-gc', PROBE, dir], { encoding: 'utf8', timeout: 120_000 });
    expect({ signal: run.signal, status: run.status, stderr: run.stderr }).toEqual({
      signal: null,
      status: 0,
      stderr: '',
    });
    expect(run.stdout).toMatch(/^done, \d+ handles left open/);
  });
});
