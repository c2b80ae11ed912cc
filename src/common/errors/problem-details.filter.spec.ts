import { jest } from '@jest/globals';
import type { Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { logServerFault } from './problem-details.filter.js';

// Through the request's own logger: see src/logging/request-logging.integration.spec.ts (a real server).
describe('logServerFault', () => {
  it('falls back to the application logger when the request has none (router errors)', () => {
    const fallback = { error: jest.fn() };
    const error = new Error('before any hook');

    logServerFault(error, { request: { raw: {} } } as unknown as FastifyReply, fallback as unknown as Logger);

    expect(fallback.error).toHaveBeenCalledWith(error);
  });
});
