import type { Logger as NestLogger } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { connect, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino, type Bindings, type ChildLoggerOptions, type Logger } from 'pino';
import { sendProblem } from '../common/errors/problem-details.filter.js';
import { REDACTED_PATHS } from './logger.options.js';
import { registerRequestLogging } from './request-logging.js';

/**
 * The request logger on a real Fastify server, wired to the error handling the application uses:
 * the request's own logger is what `logServerFault` logs a 500 through.
 */
describe('registerRequestLogging', () => {
  const lines: Record<string, unknown>[] = [];
  const fallbackErrors: unknown[] = [];
  /** Bindings of every logger made from the request logger's base: one per request logger. */
  const requestLoggersMade: unknown[] = [];
  const fastify = new FastifyAdapter().getInstance();
  let baseUrl: string;
  let slowRequestStarted: () => void = () => undefined;

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const root = pino({ redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
    registerRequestLogging(fastify, countingRequestLoggers(root));
    const fallback = { error: (error: unknown) => fallbackErrors.push(error) } as unknown as NestLogger;
    fastify.setErrorHandler((error, _request, reply) => sendProblem(error, reply, fallback));
    fastify.get('/ok', () => ({ ok: true }));
    fastify.get('/boom', () => {
      throw new Error('disk on fire');
    });
    fastify.get('/health', () => 'up');
    fastify.get('/password-reset/:token', () => 'choose a password');
    fastify.get('/signup/verify/:token', () => 'confirmed');
    fastify.get('/go', (_request, reply) => reply.code(302).header('location', 'https://example.com/').send());
    // Answers only once its client has gone (or after 5 s), telling the spec when it has started.
    fastify.get('/slow', async (request) => {
      slowRequestStarted();
      await new Promise((resolve) => {
        request.raw.once('close', resolve);
        setTimeout(resolve, 5000).unref();
      });
      return 'late';
    });
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}`;
  });

  afterAll(() => fastify.close());

  beforeEach(() => {
    lines.length = 0;
    fallbackErrors.length = 0;
    requestLoggersMade.length = 0;
  });

  /** `root`, whose children's children (the request loggers) are recorded as they are made. */
  function countingRequestLoggers(root: Logger): Logger {
    type MakeChild = (bindings: Bindings, options?: ChildLoggerOptions) => Logger;
    // pino's own method, from its prototype: children inherit the root's own properties, so
    // they must not call the replacement below.
    const pinoChild = (Object.getPrototypeOf(root) as { child: MakeChild }).child;
    const base =
      (parent: Logger): MakeChild =>
      (bindings, options) =>
        pinoChild.call(parent, bindings, options);
    const makeBase = base(root);
    root.child = ((bindings: Bindings, options?: ChildLoggerOptions) => {
      const requestLoggerBase = makeBase(bindings, options);
      const makeRequestLogger = base(requestLoggerBase);
      requestLoggerBase.child = ((requestBindings: Bindings, requestOptions?: ChildLoggerOptions) => {
        requestLoggersMade.push(requestBindings);
        return makeRequestLogger(requestBindings, requestOptions);
      }) as unknown as Logger['child'];
      return requestLoggerBase;
    }) as unknown as Logger['child'];
    return root;
  }

  /** Lines are written when the response has finished, just after the client has it. */
  async function linesAfter(path: string, init?: RequestInit): Promise<Record<string, unknown>[]> {
    const response = await fetch(`${baseUrl}${path}`, init);
    await response.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 50));
    return lines;
  }

  it('writes one line per request with Fastify’s request id, its status and censored secrets', async () => {
    const logged = await linesAfter('/ok', { headers: { 'x-api-key': 'sl_secret' } });

    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      level: 30,
      msg: 'request completed',
      req: {
        id: expect.stringMatching(/^req-\d+$/),
        method: 'GET',
        url: '/ok',
        headers: { 'x-api-key': '[redacted]' },
      },
      res: { statusCode: 200 },
    });
    expect(JSON.stringify(logged)).not.toContain('sl_secret');
  });

  it('never writes the secret of a link sent by email (a password reset, a sign-up proof)', async () => {
    const secret = 'Xq4wJ7kPz0aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uVw';
    await linesAfter(`/password-reset/${secret}?from=mail`);
    const logged = await linesAfter(`/signup/verify/${secret}`);
    expect(logged.map((line) => (line.req as { url: string }).url)).toEqual([
      '/password-reset/[redacted]?from=mail',
      '/signup/verify/[redacted]',
    ]);
    expect(JSON.stringify(logged)).not.toContain(secret);
  });

  it('logs a server fault once more, as a line of the request that failed', async () => {
    const logged = await linesAfter('/boom');

    expect(fallbackErrors).toEqual([]);
    const [fault, completed] = logged;
    expect(fault).toMatchObject({ level: 50, context: 'Errors', err: { message: 'disk on fire' } });
    expect(completed).toMatchObject({ level: 50, msg: 'request errored', res: { statusCode: 500 } });
    // Both lines through one request logger.
    expect(requestLoggersMade).toHaveLength(1);
    expect((fault.req as { id: string }).id).toBe((completed.req as { id: string }).id);
  });

  it('leaves health probes out', async () => {
    expect(await linesAfter('/health')).toEqual([]);
    expect(requestLoggersMade).toEqual([]);
  });

  it('makes no request logger for a line the level leaves out (a redirect below debug)', async () => {
    expect(await linesAfter('/go', { redirect: 'manual' })).toEqual([]);
    expect(requestLoggersMade).toEqual([]);

    await linesAfter('/ok');
    expect(requestLoggersMade).toHaveLength(1);
  });

  it('logs a request the client gave up on before its answer', async () => {
    // A raw connection, closed by the client while the handler still works.
    // Closed once the handler is known to be running, not after a guessed delay: on a loaded
    // machine the request and the close could otherwise reach the server in one read.
    const started = new Promise<void>((resolve) => (slowRequestStarted = resolve));
    const socket = connect(Number(new URL(baseUrl).port), '127.0.0.1');
    socket.write('GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await started;
    socket.destroy();
    for (let waited = 0; lines.length === 0 && waited < 5000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Time for a second line, should the request be logged twice.
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(lines).toEqual([
      expect.objectContaining({ level: 30, msg: 'request aborted', req: expect.objectContaining({ url: '/slow' }) }),
    ]);
  });
});
