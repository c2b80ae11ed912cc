import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Command, CommanderError } from 'commander';
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { Writable, type Readable } from 'node:stream';
import { AccountsService } from '../accounts/accounts.service.js';
import { printableEmail } from '../accounts/email-address.js';
import { ALL_SCOPES, SCOPES } from '../auth/scopes.js';
import { AdminService } from '../admin/admin.service.js';
import { CLI_ACTOR } from '../admin/audit-log.js';
import { ApiError } from '../common/errors/api-error.js';
import { ConfigError, loadConfig, type AppConfig } from '../config/app-config.js';
import { prepareDatabase } from '../database/startup-migrations.js';
import { TokensService } from '../auth/tokens.service.js';
import { LinksService } from '../links/links.service.js';
import { exportLinksCsv, EXPORT_COLUMNS } from '../links/transfer/links-csv-export.js';
import { ImportFileError, importLinksCsv } from '../links/transfer/links-csv-import.js';
import { runWebhookWorker, stopSignal } from '../webhooks/worker/webhook-worker.js';
import { CliModule } from './cli.module.js';
import { BackupError, backupSqlite } from '../database/sqlite-backup.js';
import { sqliteFileOf } from '../../prisma/engine/database-url.js';

/** A problem the user can fix: printed as one line on stderr, exit status 1, no stack trace. */
export class CliError extends Error {
  override name = 'CliError';
}

/** A command that finished, but with an answer its exit status carries (a check that found something). */
class CliExitStatus extends Error {
  override name = 'CliExitStatus';
  constructor(readonly status: number) {
    super(`exit status ${status}`);
  }
}

/** Where the commands write: stdout carries only results, so they can be piped or captured. */
export interface CliOutput {
  out: (text: string) => void;
  err: (text: string) => void;
}

const processOutput: CliOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/** `--scopes a, b` as a list; whether the scopes are right is TokensService's rule. */
function parseScopeOption(list: string): string[] {
  return list
    .split(',')
    .map((scope) => scope.trim())
    .filter((scope) => scope !== '');
}

/**
 * The configuration, its database created or migrated as the server's start-up does it, so a
 * fresh install can create its first account before the first `npm start`.
 */
async function loadPreparedConfig(env: NodeJS.ProcessEnv | undefined, output: CliOutput): Promise<AppConfig> {
  const config = loadConfig(env);
  try {
    await prepareDatabase(config.database, {
      migrateOnStart: config.migrateOnStart,
      // Creating the database or applying migrations is worth a line; "up to date" on every command is not.
      log: (message) => {
        if (!message.includes('up to date')) output.err(`shortlink: ${message}\n`);
      },
    });
  } catch (error) {
    // Unreachable database, pending migrations with MIGRATE_ON_START=false: the message says it all.
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
  return config;
}

/**
 * Runs one command against the configured database. The Nest context holds only the database
 * and the services; its logger is off so stdout stays machine-readable.
 */
async function withServices<T>(
  env: NodeJS.ProcessEnv | undefined,
  output: CliOutput,
  work: (context: INestApplicationContext) => Promise<T>,
): Promise<T> {
  const config = await loadPreparedConfig(env, output);
  const context = await NestFactory.createApplicationContext(CliModule.forRoot(config), {
    logger: false,
    abortOnError: false,
  });
  try {
    return await work(context);
  } finally {
    await context.close();
  }
}

async function findAccountId(context: INestApplicationContext, email: string): Promise<string> {
  const account = await context.get(AccountsService).findByEmail(email);
  if (!account) {
    const shown = printableEmail(email);
    throw new CliError(`No account for ${shown}; create it with: shortlink account create ${shown}`);
  }
  return account.id;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** The password piped in (`echo … | shortlink account set-password`): all of stdin, one trailing newline dropped. */
async function readPassword(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** `env` defaults to the process environment (read by loadConfig); tests may pass their own. */
export function buildProgram(
  env?: NodeJS.ProcessEnv,
  output: CliOutput = processOutput,
  input: NodeJS.ReadableStream = process.stdin,
): Command {
  const program = new Command()
    .name('shortlink')
    .description('Manage shortlink accounts, API tokens and links (uses the same DATABASE_URL as the server)')
    .configureOutput({ writeOut: output.out, writeErr: output.err })
    .showHelpAfterError()
    .exitOverride();

  const account = program.command('account').description('Manage accounts');
  account
    .command('create')
    .description('Create an account and print it as JSON')
    .argument('<email>', 'e-mail address of the account')
    .option('--admin', 'make it an admin of the instance (the /admin pages, tokens with the scope admin)')
    .action(async (email: string, options: { admin?: boolean }) => {
      await withServices(env, output, async (context) => {
        const created = options.admin
          ? await context.get(AdminService).createAdmin(CLI_ACTOR, email)
          : await context.get(AccountsService).create(email);
        output.out(json(created));
      });
    });

  account
    .command('set-admin')
    .description('Make an account an admin of the instance, or with --revoke no longer one; prints it as JSON')
    .argument('<email>', 'e-mail address of the account')
    .option('--revoke', 'take the admin role away (its admin tokens stop working at once)')
    .action(async (email: string, options: { revoke?: boolean }) => {
      await withServices(env, output, async (context) => {
        const accountId = await findAccountId(context, email);
        output.out(json(await context.get(AdminService).setAdmin(CLI_ACTOR, accountId, !options.revoke)));
      });
    });

  account
    .command('disable')
    .description(
      'Disable an account: it cannot sign in, its sessions end, its tokens answer 403 and its links are disabled; prints it as JSON',
    )
    .argument('<email>', 'e-mail address of the account')
    .option('--reason <text>', 'why (kept in the audit log)')
    .action(async (email: string, options: { reason?: string }) => {
      await withServices(env, output, async (context) => {
        const accountId = await findAccountId(context, email);
        output.out(json(await context.get(AdminService).disableAccount(CLI_ACTOR, accountId, options.reason)));
      });
    });

  account
    .command('enable')
    .description('Enable a disabled account and the links its disabling disabled; prints it as JSON')
    .argument('<email>', 'e-mail address of the account')
    .action(async (email: string) => {
      await withServices(env, output, async (context) => {
        const accountId = await findAccountId(context, email);
        output.out(json(await context.get(AdminService).enableAccount(CLI_ACTOR, accountId)));
      });
    });

  account
    .command('set-password')
    .description("Set an account's dashboard password, read from stdin; ends the account's dashboard sessions")
    .argument('<email>', 'e-mail address of the account')
    .action(async (email: string) => {
      const password = await readPassword(input);
      await withServices(env, output, async (context) => {
        await context.get(AccountsService).setPasswordByEmail(email, password);
        output.out(`Password set for ${email}\n`);
      });
    });

  account
    .command('reset-2fa')
    .description("Turn an account's two-factor sign-in off (for an owner who lost their app and recovery codes)")
    .argument('<email>', 'e-mail address of the account')
    .action(async (email: string) => {
      await withServices(env, output, async (context) => {
        const reset = await context.get(AccountsService).resetTwoFactorByEmail(email);
        output.out(
          reset
            ? `Two-factor sign-in turned off for ${email}\n`
            : `Two-factor sign-in was not on for ${email}; nothing changed\n`,
        );
      });
    });

  account
    .command('check-emails')
    .description(
      'List the accounts whose email breaks the email rule (made before it): id, address, why. Changes nothing; exit status 1 when it lists any',
    )
    .action(async () => {
      await withServices(env, output, async (context) => {
        const found = await context.get(AccountsService).emailRuleBreaks();
        if (found.length === 0) {
          output.out('Every account’s email follows the rule.\n');
          return;
        }
        const count = found.length === 1 ? '1 account has' : `${found.length} accounts have`;
        output.out(`${count} an email that breaks the rule (nothing was changed):\n`);
        for (const { id, email, breaks } of found) output.out(`${id}\t${email}\t${breaks.join('; ')}\n`);
        throw new CliExitStatus(1);
      });
    });

  const token = program.command('token').description('Manage API tokens');
  token
    .command('create')
    .description('Create an API token and print it alone on one line (it is shown only this once)')
    .argument('<email>', 'e-mail address of the account that owns the token')
    .option('--name <label>', 'a label to tell tokens apart', 'default')
    .option(
      '--scopes <list>',
      `comma-separated scopes (${ALL_SCOPES.join(', ')}; admin only for an admin's token)`,
      SCOPES.join(','),
    )
    .action(async (email: string, options: { name: string; scopes: string }) => {
      const scopes = parseScopeOption(options.scopes);
      await withServices(env, output, async (context) => {
        const accountId = await findAccountId(context, email);
        const created = await context
          .get(TokensService)
          .create(accountId, options.name, scopes)
          .catch((error: unknown) => {
            // The service's rule, said in the CLI's terms: `--name: …`, `--scopes: …`.
            if (!(error instanceof ApiError && error.fieldErrors)) throw error;
            throw new CliError(error.fieldErrors.map((problem) => `--${problem.field}: ${problem.message}`).join('\n'));
          });
        output.out(`${created.token}\n`);
        output.err(
          `shortlink: token ${created.view.id} created with scopes ${created.view.scopes.join(', ')}; store it now, it is not shown again\n`,
        );
      });
    });

  token
    .command('list')
    .description("Print an account's tokens as a JSON array (never the tokens themselves)")
    .argument('<email>', 'e-mail address of the account')
    .action(async (email: string) => {
      await withServices(env, output, async (context) => {
        const accountId = await findAccountId(context, email);
        output.out(json(await context.get(TokensService).listForAccount(accountId)));
      });
    });

  token
    .command('revoke')
    .description('Revoke a token by its id (see token list); it answers 401 at once')
    .argument('<token-id>', 'the id of the token')
    .action(async (id: string) => {
      await withServices(env, output, async (context) => {
        const revoked = await context.get(TokensService).revoke(id);
        if (!revoked) throw new CliError(`No token with id ${id}`);
        output.out(json(revoked));
      });
    });

  const links = program.command('links').description("Move an account's links in and out as CSV");
  links
    .command('import')
    .description(
      'Import links from a CSV with a header row: url (or long_url, longUrl, target, original_url) and optionally ' +
        'code (or keyword, shortCode, short_code, custom_code), as Bitly, YOURLS, Shlink and Kutt export them. ' +
        'Prints each row not imported with its line number, then a summary',
    )
    .argument('<email>', 'e-mail address of the account the links go to')
    .argument('<file>', 'the CSV file (UTF-8; "-" reads stdin)')
    .action(async (email: string, file: string) => {
      await withServices(env, output, async (context) => {
        const accountId = await findAccountId(context, email);
        if ((await context.get(AccountsService).get(accountId)).disabled_at !== null) {
          throw new CliError(`The account ${email} is disabled; enable it first: shortlink account enable ${email}`);
        }
        const source = file === '-' ? input : createReadStream(file);
        const opened = file === '-' ? Promise.resolve() : once(source, 'open');
        try {
          await opened;
        } catch (error) {
          throw new CliError(`Cannot read ${file}: ${(error as Error).message}`);
        }
        try {
          const tally = await importLinksCsv(context.get(LinksService), accountId, source as Readable, (row) =>
            output.out(`line ${row.line}: ${row.outcome}: ${row.reason}\n`),
          );
          output.out(`created ${tally.created}, skipped ${tally.skipped} (code taken), invalid ${tally.invalid}\n`);
        } catch (error) {
          if (error instanceof ImportFileError) throw new CliError(error.message);
          throw error;
        }
      });
    });

  links
    .command('export')
    .description(`Write an account's links to stdout as CSV (${EXPORT_COLUMNS.join(',')}), oldest first`)
    .argument('<email>', 'e-mail address of the account')
    .action(async (email: string) => {
      await withServices(env, output, async (context) => {
        const accountId = await findAccountId(context, email);
        const sink = new Writable({
          write(chunk: Buffer, _encoding, done) {
            output.out(chunk.toString('utf8'));
            done();
          },
        });
        const rows = await exportLinksCsv(context.get(LinksService), accountId, sink);
        output.err(`shortlink: exported ${rows} links\n`);
      });
    });

  const webhooks = program.command('webhooks').description('Deliver webhook messages');
  webhooks
    .command('worker')
    .description(
      'Deliver the webhook messages stored in the database until SIGTERM or SIGINT, with no HTTP server: beside ' +
        'API instances started with WEBHOOK_DELIVERY=off, so that they only store them. Logs to stdout as the server ' +
        'does; METRICS_PORT serves its Prometheus metrics. Several may run on one PostgreSQL database',
    )
    .action(async () => {
      // Listening before start-up: a stop asked for meanwhile is honoured once the worker runs.
      const stop = stopSignal();
      const config = await loadPreparedConfig(env, output);
      await runWebhookWorker(config, stop);
    });

  program
    .command('backup')
    .description(
      'Write a consistent copy of the SQLite database to <file> while the service keeps serving (SQLite online backup); ' +
        'never overwrites a file. On PostgreSQL, use pg_dump',
    )
    .argument('<file>', 'the new file to write (it must not exist)')
    .action(async (file: string) => {
      const config = loadConfig(env);
      if (config.databaseKind === 'postgresql') {
        throw new CliError(
          'backup copies a SQLite database; on PostgreSQL use pg_dump, e.g. pg_dump --format=custom --file=shortlink.dump "$DATABASE_URL" (see docs/operations.md, "Backups and restore")',
        );
      }
      const source = sqliteFileOf(config.database);
      try {
        const result = await backupSqlite(source, file);
        output.out(`Backup written to ${result.file} (${result.bytes} bytes, ${result.links} links, integrity ok)\n`);
      } catch (error) {
        if (error instanceof BackupError) throw new CliError(error.message);
        throw error;
      }
    });

  return program;
}

/**
 * What the CLI says about a failure, after `shortlink: `. What the user can fix is one line: a
 * service's refusal (any ApiError: its detail, written for people), the CLI's own (CliError) and
 * the configuration's (ConfigError). Anything else (database unreachable, a bug): the message
 * first, the stack for bug reports.
 */
export function failureMessage(error: unknown): string {
  if (error instanceof ApiError) return error.detail;
  if (error instanceof CliError || error instanceof ConfigError) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** Runs the CLI and returns its exit status; every failure the user can fix is one stderr line. */
export async function runCli(
  argv: string[],
  env?: NodeJS.ProcessEnv,
  output: CliOutput = processOutput,
  input: NodeJS.ReadableStream = process.stdin,
): Promise<number> {
  try {
    await buildProgram(env, output, input).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    // Commander has already printed its own message (usage errors) or the help text.
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CliExitStatus) return error.status;
    output.err(`shortlink: ${failureMessage(error)}\n`);
    return 1;
  }
}
