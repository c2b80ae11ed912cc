import { jest } from '@jest/globals';
import type { Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { logServerFault } from './problem-details.filter.js';

/** A pino logger writing its JSON lines into `lines`, synchronously. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { root: pino(stream), lines };
}

describe('logServerFault', () => {
  it("logs through the request's own logger, so the line carries the request", () => {
    const { root, lines } = capturingLogger();
    const requestLog = root.child({ req: { id: 'req-7', method: 'POST', url: '/api/links' } });
    const fallback = { error: jest.fn() };
    const reply = { request: { raw: { log: requestLog } } } as unknown as FastifyReply;

    logServerFault(new Error('disk on fire'), reply, fallback as unknown as Logger);

    expect(fallback.error).not.toHaveBeenCalled();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 50,
      context: 'Errors',
      req: { id: 'req-7', method: 'POST', url: '/api/links' },
      err: { type: 'Error', message: 'disk on fire' },
      msg: 'disk on fire',
    });
    expect((lines[0].err as { stack: string }).stack).toContain('disk on fire');
  });

  it('falls back to the application logger when the request has none (router errors)', () => {
    const fallback = { error: jest.fn() };
    const error = new Error('before any hook');

    logServerFault(error, { request: { raw: {} } } as unknown as FastifyReply, fallback as unknown as Logger);

    expect(fallback.error).toHaveBeenCalledWith(error);
  });
});
