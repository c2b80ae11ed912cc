import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCOPES } from '../src/auth/scopes.js';
import { PrismaService } from '../src/database/prisma.service.js';
import { TEST_REDIS_URL } from './support/processes/redis-server.js';
import { createTestDatabase, type TestDatabase } from './support/database/test-database.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { childEnv, completion, PROJECT_ROOT, runSource, type ProcessResult } from './support/processes/run-source.js';
import { spawn } from 'node:child_process';
import { shortlinkInProcess } from './support/processes/cli-in-process.js';

/**
 * The `shortlink` tool on the spec's database: its commands run in this process through `runCli`
 * (what `src/cli/main.ts` calls), with the environment, stdin, stdout and stderr a real process
 * would have; starting a process per command cost minutes. What only a real process shows (exit
 * codes, the installed `bin/shortlink.js`) is checked at the end with real processes.
 */
describe('shortlink CLI', () => {
  let database: TestDatabase;
  const shortlink = (args: string[], env: Record<string, string> = {}, stdin?: string): Promise<ProcessResult> =>
    shortlinkInProcess(args, { DATABASE_URL: database.url, ...env }, stdin);
  const email = 'Owner@Example.test';

  beforeAll(async () => {
    // Not migrated: the CLI itself must prepare a fresh database, as on a new install.
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await database.drop();
  });

  it('prints its help, naming every command', async () => {
    const result = await shortlink(['--help']);

    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage: shortlink');
    expect(result.stdout).toMatch(/account/);
    expect(result.stdout).toMatch(/token/);
    const tokenHelp = await shortlink(['token', '--help']);
    expect(tokenHelp.stdout).toMatch(/create[\s\S]*list[\s\S]*revoke/);
  });

  it('creates an account on a fresh database and prints it as JSON', async () => {
    const result = await shortlink(['account', 'create', email]);

    expect(result.stderr).not.toMatch(/Error|at .*\(/);
    expect(result.status).toBe(0);
    const account = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(account).sort()).toEqual(['created_at', 'disabled_at', 'email', 'id', 'is_admin']);
    expect(account).toMatchObject({ is_admin: false, disabled_at: null });
    expect(account.email).toBe('owner@example.test');
    expect(new Date(account.created_at as string).toISOString()).toBe(account.created_at);
  });

  it('refuses a duplicate account (e-mail compared case-insensitively) with one line and exit 1', async () => {
    const result = await shortlink(['account', 'create', 'OWNER@example.test']);

    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual(['shortlink: An account for owner@example.test already exists']);
  });

  it.each(['not-an-email', 'a@b', 'two words@example.test'])('refuses the invalid e-mail %j', async (bad) => {
    const result = await shortlink(['account', 'create', bad]);

    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^shortlink: Not an e-mail address/m);
  });

  it('stops on bad configuration with one line naming the variable', async () => {
    const result = await shortlink(['account', 'create', 'x@example.test'], { PORT: 'abc' });

    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('shortlink: Invalid configuration: PORT="abc" must be an integer number\n');
  });

  it('stops on an unknown DATABASE_URL scheme with one line naming it', async () => {
    const result = await shortlink(['token', 'list', email], { DATABASE_URL: 'mysql://localhost/x' });

    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('DATABASE_URL');
  });

  it('exits 1 on an unknown command or a missing argument', async () => {
    expect((await shortlink(['launch'])).status).toBe(1);
    const missing = await shortlink(['token', 'revoke']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("missing required argument 'token-id'");
  });

  describe('with the server running on the same database', () => {
    let testApp: TestApp;

    beforeAll(async () => {
      testApp = await startTestApp({}, database);
    });

    afterAll(async () => {
      await testApp.close();
    });

    const createToken = async (args: string[] = []): Promise<string> => {
      const result = await shortlink(['token', 'create', email, ...args]);
      expect(result.stderr).not.toMatch(/Error/);
      expect(result.status).toBe(0);
      return result.stdout;
    };

    it('prints a new token alone on one line, and it works in both headers', async () => {
      const stdout = await createToken();

      expect(stdout).toMatch(/^sl_[0-9A-Za-z]{40}\n$/);
      const token = stdout.trim();
      const viaApiKey = await testApp.request('/api/links', { headers: { 'x-api-key': token } });
      const viaBearer = await testApp.request('/api/links', { headers: { authorization: `Bearer ${token}` } });
      expect(viaApiKey.status).toBe(200);
      expect(viaBearer.status).toBe(200);
      const created = await testApp.request('/api/links', {
        method: 'POST',
        headers: { 'x-api-key': token },
        json: { url: 'https://example.com/cli' },
      });
      expect(created.status).toBe(201);
    });

    it('gives a new token every scope (links and webhooks) and the name "default" unless told otherwise', async () => {
      const token = (await createToken()).trim();

      const list = JSON.parse((await shortlink(['token', 'list', email])).stdout) as Array<Record<string, unknown>>;
      const view = list.find((entry) => entry.prefix === token.slice(0, 7));
      expect(view).toMatchObject({ name: 'default', scopes: [...SCOPES], revoked_at: null });
    });

    it('honours --scopes: a read-only token may list but not create (403 forbidden)', async () => {
      const token = (await createToken(['--name', 'read only', '--scopes', 'links:read'])).trim();

      expect((await testApp.request('/api/links', { headers: { 'x-api-key': token } })).status).toBe(200);
      const write = await testApp.request('/api/links', {
        method: 'POST',
        headers: { 'x-api-key': token },
        json: { url: 'https://example.com/' },
      });
      expect(write.status).toBe(403);
      expect(await write.json()).toMatchObject({ error: 'forbidden' });
    });

    it('honours --scopes: a write-only token may create but not list', async () => {
      const token = (await createToken(['--scopes', ' links:write '])).trim();

      expect((await testApp.request('/api/links', { headers: { 'x-api-key': token } })).status).toBe(403);
      const write = await testApp.request('/api/links', {
        method: 'POST',
        headers: { authorization: `bearer ${token}` },
        json: { url: 'https://example.com/' },
      });
      expect(write.status).toBe(201);
    });

    it('refuses an unknown scope, naming the valid ones, and creates nothing', async () => {
      const before = JSON.parse((await shortlink(['token', 'list', email])).stdout) as unknown[];

      const result = await shortlink(['token', 'create', email, '--scopes', 'links:read,links:admin']);

      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('links:admin');
      expect(result.stderr).toContain('valid scopes: links:read, links:write');
      const after = JSON.parse((await shortlink(['token', 'list', email])).stdout) as unknown[];
      expect(after).toHaveLength(before.length);
    });

    it('refuses an empty scope list', async () => {
      const result = await shortlink(['token', 'create', email, '--scopes', ',']);

      expect(result.status).toBe(1);
      expect(result.stderr).toContain('--scopes');
    });

    it.each([' ', 'x'.repeat(101)])(
      "refuses the token name %j (TokensService's rule, said as --name), creating nothing",
      async (name) => {
        const before = JSON.parse((await shortlink(['token', 'list', email])).stdout) as unknown[];

        const result = await shortlink(['token', 'create', email, '--name', name]);

        expect(result).toMatchObject({ status: 1, stdout: '' });
        expect(result.stderr).toMatch(/^shortlink: --name: /);
        const after = JSON.parse((await shortlink(['token', 'list', email])).stdout) as unknown[];
        expect(after).toHaveLength(before.length);
      },
    );

    it('refuses a token for an unknown account', async () => {
      const result = await shortlink(['token', 'create', 'nobody@example.test']);

      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim()).toBe(
        'shortlink: No account for nobody@example.test; create it with: shortlink account create nobody@example.test',
      );
      expect((await shortlink(['token', 'list', 'nobody@example.test'])).status).toBe(1);
    });

    it('lists tokens as JSON without ever printing a raw token or its hash', async () => {
      const token = (await createToken(['--name', 'listed'])).trim();

      const result = await shortlink(['token', 'list', email]);

      expect(result.status).toBe(0);
      expect(result.stdout).not.toContain(token);
      expect(result.stdout).not.toContain(token.slice(7));
      expect(result.stdout).not.toMatch(/[0-9a-f]{64}/);
      const list = JSON.parse(result.stdout) as Array<Record<string, unknown>>;
      expect(list.length).toBeGreaterThanOrEqual(1);
      for (const entry of list) {
        expect(Object.keys(entry).sort()).toEqual([
          'created_at',
          'id',
          'last_used_at',
          'name',
          'prefix',
          'revoked_at',
          'scopes',
        ]);
      }
      expect(list.find((entry) => entry.name === 'listed')).toMatchObject({ prefix: token.slice(0, 7) });
    });

    it('revokes a token: it prints the revoked token and the token answers 401 at once', async () => {
      const token = (await createToken(['--name', 'to revoke'])).trim();
      expect((await testApp.request('/api/links', { headers: { 'x-api-key': token } })).status).toBe(200);
      const list = JSON.parse((await shortlink(['token', 'list', email])).stdout) as Array<{
        id: string;
        name: string;
      }>;
      const id = list.find((entry) => entry.name === 'to revoke')!.id;

      const result = await shortlink(['token', 'revoke', id]);

      expect(result.status).toBe(0);
      const revoked = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(revoked).toMatchObject({ id, name: 'to revoke' });
      expect(typeof revoked.revoked_at).toBe('string');
      expect(JSON.stringify(revoked)).not.toContain(token);
      const refused = await testApp.request('/api/links', { headers: { 'x-api-key': token } });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer');
      expect(await refused.json()).toMatchObject({ error: 'unauthorized' });
      expect((await testApp.request('/api/links', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    });

    it('keeps the first revocation time when a token is revoked twice', async () => {
      await createToken(['--name', 'twice']);
      const list = JSON.parse((await shortlink(['token', 'list', email])).stdout) as Array<{
        id: string;
        name: string;
      }>;
      const id = list.find((entry) => entry.name === 'twice')!.id;

      const first = JSON.parse((await shortlink(['token', 'revoke', id])).stdout) as { revoked_at: string };
      const second = await shortlink(['token', 'revoke', id]);

      expect(second.status).toBe(0);
      expect(JSON.parse(second.stdout)).toMatchObject({ revoked_at: first.revoked_at });
    });

    /** Signs in on the dashboard's form as a browser would; the status and the session cookie. */
    const signIn = async (account: string, password: string): Promise<{ status: number; cookie?: string }> => {
      const page = await testApp.request('/login');
      const csrfCookie = page.headers
        .getSetCookie()
        .map((line) => line.split(';')[0])
        .join('; ');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1];
      const response = await testApp.request('/login', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie },
        body: new URLSearchParams({ _csrf: csrf, email: account, password }).toString(),
      });
      const session = response.headers.getSetCookie().find((line) => line.startsWith('__Host-shortlink_session='));
      return { status: response.status, cookie: session?.split(';')[0] };
    };

    it('account set-password reads the password from stdin (one trailing newline dropped); it signs in', async () => {
      expect((await signIn(email, 'piped password 1')).status).toBe(401);

      const result = await shortlink(['account', 'set-password', email], {}, 'piped password 1\n');

      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      expect(result.stdout).toBe(`Password set for ${email}\n`);
      expect(result.stdout).not.toContain('piped password 1');
      expect((await signIn(email, 'piped password 1')).status).toBe(303);
      expect((await signIn(email, 'piped password 1\n')).status).toBe(401);
    });

    it('account set-password ends the account’s dashboard sessions', async () => {
      await shortlink(['account', 'set-password', email], {}, 'piped password 2');
      const { cookie } = await signIn(email, 'piped password 2');
      expect((await testApp.request('/dashboard', { headers: { cookie: cookie! } })).status).toBe(200);

      expect((await shortlink(['account', 'set-password', email], {}, 'piped password 3')).status).toBe(0);

      const after = await testApp.request('/dashboard', { headers: { cookie: cookie! } });
      expect(after.status).toBe(303);
      expect(after.headers.get('location')).toBe('/login?next=%2Fdashboard');
    });

    it('account set-password refuses a short password or an unknown account, changing nothing', async () => {
      await shortlink(['account', 'set-password', email], {}, 'piped password 4');

      const short = await shortlink(['account', 'set-password', email], {}, 'short');
      const unknown = await shortlink(['account', 'set-password', 'nobody@example.test'], {}, 'long enough password');

      expect(short.status).toBe(1);
      expect(short.stdout).toBe('');
      expect(short.stderr.trim()).toBe('shortlink: Use at least 8 characters.');
      expect(unknown.status).toBe(1);
      expect(unknown.stderr.trim()).toBe('shortlink: No account for nobody@example.test');
      expect((await signIn(email, 'piped password 4')).status).toBe(303);
    });

    it('refuses to revoke an unknown token id', async () => {
      const result = await shortlink(['token', 'revoke', '00000000-0000-0000-0000-000000000000']);

      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim()).toBe('shortlink: No token with id 00000000-0000-0000-0000-000000000000');
    });
  });

  describe('administering the instance, with the server running on the same database and Redis', () => {
    let testApp: TestApp;
    const adminEmail = 'Admin@Example.test';
    const userEmail = 'plain-user@example.test';
    // The commands tell the server's redirect cache through Redis, as another instance would.
    const redis = { REDIS_URL: TEST_REDIS_URL };
    const shortlink = (args: string[], env: Record<string, string> = {}, stdin?: string) =>
      shortlinkInProcess(args, { DATABASE_URL: database.url, ...redis, ...env }, stdin);

    beforeAll(async () => {
      testApp = await startTestApp(redis, database);
    });

    afterAll(async () => {
      await testApp.close();
    });

    const json = <T>(result: ProcessResult): T => {
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
      return JSON.parse(result.stdout) as T;
    };

    it('creates an admin with --admin, and only an admin’s token may hold the scope admin', async () => {
      const created = json<{ email: string; is_admin: boolean }>(
        await shortlink(['account', 'create', adminEmail, '--admin']),
      );
      expect(created).toMatchObject({ email: 'admin@example.test', is_admin: true, disabled_at: null });
      json(await shortlink(['account', 'create', userEmail]));

      const adminToken = await shortlink(['token', 'create', adminEmail, '--scopes', 'admin,links:read']);
      expect(adminToken.status).toBe(0);
      const blocked = await testApp.request('/api/admin/blocked-hosts', {
        headers: { authorization: `Bearer ${adminToken.stdout.trim()}` },
      });
      expect(blocked.status).toBe(200);

      const refused = await shortlink(['token', 'create', userEmail, '--scopes', 'admin,links:read']);
      expect(refused).toMatchObject({ status: 1, stdout: '' });
      expect(refused.stderr).toBe("shortlink: --scopes: Only an admin's token may hold the scope admin.\n");
      const tokens = json<unknown[]>(await shortlink(['token', 'list', userEmail]));
      expect(tokens).toEqual([]);
      // Never given by default.
      const plain = await shortlink(['token', 'create', adminEmail]);
      const list = json<Array<{ prefix: string; scopes: string[] }>>(await shortlink(['token', 'list', adminEmail]));
      expect(list.find((entry) => entry.prefix === plain.stdout.slice(0, 7))?.scopes).toEqual([...SCOPES]);
    });

    it('set-admin makes an admin and --revoke undoes it, refusing the last admin', async () => {
      expect(json<{ is_admin: boolean }>(await shortlink(['account', 'set-admin', userEmail])).is_admin).toBe(true);
      expect(
        json<{ is_admin: boolean }>(await shortlink(['account', 'set-admin', userEmail, '--revoke'])).is_admin,
      ).toBe(false);

      const last = await shortlink(['account', 'set-admin', adminEmail, '--revoke']);
      expect(last).toMatchObject({ status: 1, stdout: '' });
      expect(last.stderr).toBe(
        'shortlink: admin@example.test is the last admin of this instance and cannot stop being an admin: make another account an admin first\n',
      );
      const unknown = await shortlink(['account', 'set-admin', 'nobody@example.test']);
      expect(unknown).toMatchObject({ status: 1, stdout: '' });
      expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    });

    it('disable signs the account out, refuses its tokens and disables its links; enable brings them back', async () => {
      const token = (await shortlink(['token', 'create', userEmail])).stdout.trim();
      const created = await testApp.request('/api/links', {
        method: 'POST',
        headers: { 'x-api-key': token },
        json: { url: 'https://cli-disabled.example/' },
      });
      const { code } = (await created.json()) as { code: string };
      expect((await testApp.request(`/${code}`)).status).toBe(302);
      expect((await testApp.request(`/${code}`)).status).toBe(302); // cached by the server now

      const disabled = json<{ disabled_at: string | null }>(
        await shortlink(['account', 'disable', userEmail, '--reason', 'Phishing links']),
      );
      expect(disabled.disabled_at).not.toBeNull();
      const refused = await testApp.request('/api/links', { headers: { 'x-api-key': token } });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error: 'account_disabled' });
      expect((await testApp.request(`/${code}`)).status).toBe(410);
      expect((await testApp.request(`/${code}`)).status).toBe(410); // cached by the server now
      const importing = await shortlink(['links', 'import', userEmail, '-'], {}, 'url\nhttps://example.com/\n');
      expect(importing.status).toBe(1);
      expect(importing.stderr).toContain('is disabled; enable it first');

      expect(
        json<{ disabled_at: string | null }>(await shortlink(['account', 'enable', userEmail])).disabled_at,
      ).toBeNull();
      expect((await testApp.request('/api/links', { headers: { 'x-api-key': token } })).status).toBe(200);
      expect((await testApp.request(`/${code}`)).status).toBe(302);

      const last = await shortlink(['account', 'disable', adminEmail]);
      expect(last).toMatchObject({ status: 1, stdout: '' });
      expect(last.stderr).toContain('is the last admin of this instance');
    });

    it('keeps every command in the audit log, as cli', async () => {
      const events = await testApp.app.get(PrismaService).auditEvent.findMany({ orderBy: { createdAt: 'asc' } });

      expect(
        events.map((event) =>
          `${event.via} ${event.actor} ${event.action} ${event.target} ${event.reason ?? ''}`.trim(),
        ),
      ).toEqual([
        'cli cli account.create_admin admin@example.test',
        `cli cli account.grant_admin ${userEmail}`,
        `cli cli account.revoke_admin ${userEmail}`,
        `cli cli account.disable ${userEmail} Phishing links`,
        `cli cli account.enable ${userEmail}`,
      ]);
    });
  });

  it('as a real process: results on stdout, one line on stderr and exit 1 for a problem, stdin read', async () => {
    const run = (args: string[], stdin?: string) =>
      runSource('src/cli/main.ts', args, { DATABASE_URL: database.url }, stdin);
    const processEmail = 'process@example.test';

    const created = await run(['account', 'create', processEmail]);
    expect(created.status).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ email: processEmail });

    const duplicate = await run(['account', 'create', processEmail]);
    expect(duplicate).toMatchObject({ status: 1, stdout: '' });
    expect(duplicate.stderr.trim().split('\n')).toEqual([`shortlink: An account for ${processEmail} already exists`]);

    const password = await run(['account', 'set-password', processEmail], 'tangerine orbit quartz 81\n');
    expect({ status: password.status, stderr: password.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
  });

  it('bin/shortlink.js asks for `npm run build` when the compiled CLI is missing', async () => {
    // A copy of the package layout without dist/, as on a fresh clone before the build.
    const dir = mkdtempSync(join(tmpdir(), 'shortlink-bin-'));
    try {
      mkdirSync(join(dir, 'bin'));
      copyFileSync(join(PROJECT_ROOT, 'bin', 'shortlink.js'), join(dir, 'bin', 'shortlink.js'));
      copyFileSync(join(PROJECT_ROOT, 'package.json'), join(dir, 'package.json'));
      const child = spawn(process.execPath, [join(dir, 'bin', 'shortlink.js'), '--help'], {
        env: childEnv({}),
        stdio: ['ignore', 'pipe', 'pipe'],
      });

      const result = await completion(child);

      expect(result.status).toBe(1);
      expect(result.stderr).toContain('npm run build');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
