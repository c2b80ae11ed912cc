#!/usr/bin/env node
// @ts-check
// Stand-in for Prisma's native `schema-engine` binary, running the engine's WebAssembly build
// (see wasm-engine.js). prisma.config.ts points PRISMA_SCHEMA_ENGINE_BINARY here, so the CLI
// spawns this file instead of downloading an engine. It speaks the native binary's protocol:
//
//   schema-engine --datamodels <file>… --datasource '{"url","shadowDatabaseUrl"}' [cli <command>]
//
// Without `cli`: line-delimited JSON-RPC 2.0 on stdin/stdout until stdin closes. stdout carries
// protocol messages only; logs go to stderr as JSON lines, which is what the CLI parses there.
// With `cli can-connect-to-database | create-database`: one check, answered by the exit code.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { readDatabaseUrl } from './database-url.js';
import { createDatabase, EngineError, isEnginePanic, probeDatabase, SchemaEngineSession } from './wasm-engine.js';

/** @typedef {{ id: number | string, method: string, params?: unknown }} JsonRpcRequest */

/**
 * @param {'INFO' | 'WARN' | 'ERROR'} level
 * @param {Record<string, unknown>} fields
 */
function logLine(level, fields) {
  process.stderr.write(`${JSON.stringify({ level, fields, target: 'schema_engine::logger' })}\n`);
}

// Libraries that print to the console must not corrupt the protocol on stdout.
for (const method of /** @type {const} */ (['log', 'info', 'debug', 'warn', 'error'])) {
  console[method] = (...args) =>
    logLine(method === 'error' ? 'ERROR' : 'INFO', { message: args.map(String).join(' ') });
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  strict: false,
  options: {
    datamodels: { type: 'string', multiple: true },
    datasource: { type: 'string' },
    'enabled-preview-features': { type: 'string' },
    'extension-types': { type: 'string' },
    version: { type: 'boolean', short: 'V' },
  },
});

if (values.version) {
  process.stdout.write('schema-engine-wasm (shortlink)\n');
  process.exit(0);
}

/** @type {{ url?: string, shadowDatabaseUrl?: string }} */
const datasource = typeof values.datasource === 'string' ? JSON.parse(values.datasource) : {};

/**
 * The datasource's databases, read by the one reader the service uses too; relative SQLite paths
 * are taken from the working directory, the folder of prisma.config.ts, where the CLI runs us.
 */
function databases() {
  if (!datasource.url) throw new EngineError('P1012', 'The datasource in prisma.config.ts has no url.');
  return {
    database: readDatabaseUrl(datasource.url),
    shadowDatabase: datasource.shadowDatabaseUrl ? readDatabaseUrl(datasource.shadowDatabaseUrl) : undefined,
  };
}

if (positionals[0] === 'cli') {
  await runCliCommand(String(positionals[1]));
} else {
  serveJsonRpc();
}

/**
 * `cli can-connect-to-database` and `cli create-database`. On failure the CLI skips the first
 * stderr line and reads the error code and message from an ERROR line after it.
 * @param {string} command
 */
async function runCliCommand(command) {
  logLine('INFO', { message: `schema-engine-wasm cli ${command}` });
  try {
    const { database } = databases();
    if (command === 'can-connect-to-database') {
      const problem = await probeDatabase(database);
      if (problem) throw problem;
    } else if (command === 'create-database') {
      logLine('INFO', { message: `Database '${await createDatabase(database)}' was successfully created.` });
    } else {
      throw new Error(`Unknown cli command: ${command}`);
    }
    process.exit(0);
  } catch (error) {
    const { code, message } = /** @type {Error & { code?: string }} */ (error);
    logLine('ERROR', { error_code: /^P\d{4}$/.test(code ?? '') ? code : 'P1000', message });
    process.exit(1);
  }
}

function serveJsonRpc() {
  // Never exit while the CLI is talking to us: if the engine dies mid-session, some commands
  // (`migrate deploy`, `migrate status`, `db push`) report success. A session that cannot start
  // answers every request with the reason instead.
  /** @type {(error: unknown) => void} */
  let failStart = () => {};
  /** @type {Promise<SchemaEngineSession>} */
  const session = new Promise((resolve, reject) => {
    failStart = reject;
    SchemaEngineSession.open({
      ...databases(),
      datamodels: /** @type {string[]} */ (values.datamodels ?? []).map((file) => [file, readFileSync(file, 'utf8')]),
      log: (line) => process.stderr.write(`${line}\n`),
    }).then(resolve, reject);
  });
  session.catch(() => undefined);

  /** @param {object} message */
  const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

  // The engine may ask the CLI to print something (the `migrate diff` output); the CLI answers
  // each such request, and we wait for that before answering the request that caused it.
  let printId = 0;
  /** @type {Map<string, () => void>} */
  const printed = new Map();
  /** @param {string} content */
  const print = (content) =>
    new Promise((resolve) => {
      const id = `print-${++printId}`;
      printed.set(id, () => resolve(undefined));
      send({ id, method: 'print', params: { content } });
    });

  /** Rejects the request in flight; see the uncaughtException handler below. */
  let failCurrent = (/** @type {unknown} */ _error) => {};

  /** @param {JsonRpcRequest} request */
  const handle = async (request) => {
    try {
      const result = await new Promise((resolve, reject) => {
        failCurrent = reject;
        session.then((s) => s.request(request.method, request.params)).then(resolve, reject);
      });
      if (request.method === 'diff' && result && typeof result === 'object' && 'stdout' in result) {
        const { stdout, ...rest } = /** @type {{ stdout: string | null }} */ (result);
        // The native engine prints the diff itself and returns no stdout: do the same.
        if (stdout) await print(stdout.replace(/\n$/, ''));
        send({ id: request.id, result: { ...rest, stdout: null } });
      } else {
        send({ id: request.id, result: result ?? {} });
      }
    } catch (error) {
      const explained = await session.then(
        (s) => s.originalError(error),
        () => error,
      );
      send({ id: request.id, error: toRpcError(explained) });
    } finally {
      failCurrent = () => {};
    }
  };

  // A malformed call or a failed connection can make the wasm throw outside the promise it
  // returned, which then never settles: turn that into the failure of the engine's start-up or
  // of the request in flight.
  const fail = (/** @type {unknown} */ error) => {
    failStart(error);
    failCurrent(error);
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);

  // Requests run one at a time, in order, as the native engine does.
  let queue = Promise.resolve();
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => {
    if (!line.trim()) return;
    /** @type {JsonRpcRequest | { id: string, method?: undefined }} */
    let message;
    try {
      // The CLI's messages: requests, and answers to our print requests (no method).
      message = JSON.parse(line);
    } catch {
      logLine('WARN', { message: `ignoring a line that is not JSON: ${line.slice(0, 200)}` });
      return;
    }
    if (message.method === undefined) {
      // The CLI's answer to one of our print requests.
      printed.get(String(message.id))?.();
      printed.delete(String(message.id));
      return;
    }
    const request = message;
    queue = queue.then(() => handle(request));
  });
  lines.on('close', () => {
    void queue
      .then(() => session)
      .then((s) => s.close())
      .catch(() => undefined)
      .finally(() => process.exit(0));
  });
}

/**
 * The native engine's error shape: known errors carry a Prisma code in `data.error_code`;
 * anything else is a panic, whose text the CLI reads from `message`.
 * @param {unknown} error
 */
function toRpcError(error) {
  const { code, message, meta } = /** @type {Error & { code?: string, meta?: unknown }} */ (error ?? {});
  const text = String(message ?? error);
  if (typeof code === 'string' && /^P\d{4}$/.test(code)) {
    return {
      code: 4466,
      message: 'An error happened. Check the data field for details.',
      data: { is_panic: false, message: text, meta, error_code: code },
    };
  }
  if (isEnginePanic(error)) {
    return { code: 4466, message: text, data: { is_panic: true, message: text } };
  }
  return {
    code: 4466,
    message: 'An error happened. Check the data field for details.',
    data: { is_panic: false, message: text },
  };
}
