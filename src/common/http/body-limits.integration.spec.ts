import Fastify, { type FastifyInstance } from 'fastify';
import { BODY_LIMITS, bodyLimitFor, DEFAULT_BODY_LIMIT, describeLimit, registerBodyLimits } from './body-limits.js';

describe('body limits', () => {
  let sut: FastifyInstance;
  let baseUrl: string;

  beforeAll(async () => {
    sut = Fastify({ bodyLimit: DEFAULT_BODY_LIMIT });
    registerBodyLimits(sut);
    // A route the table names gets its limit as it is declared; any other keeps the default.
    const echoLength = (request: { body: unknown }) => ({ length: JSON.stringify(request.body).length });
    sut.post('/api/links/bulk', echoLength);
    sut.post('/api/links', echoLength);
    baseUrl = await sut.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => sut.close());

  const postJson = (path: string, bytes: number) =>
    fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ padding: 'x'.repeat(bytes) }),
    });

  it('lets the bulk route take up to 10 MiB', async () => {
    expect(BODY_LIMITS['POST /api/links/bulk']).toBe(10 * 2 ** 20);
    const response = await postJson('/api/links/bulk', 9 * 2 ** 20);
    expect(response.status).toBe(200);
  });

  it('refuses more than 10 MiB on the bulk route, and more than 1 MiB elsewhere', async () => {
    expect((await postJson('/api/links/bulk', 10 * 2 ** 20 + 1)).status).toBe(413);
    expect((await postJson('/api/links', 2 ** 20)).status).toBe(413);
    expect((await postJson('/api/links', 2 ** 20 - 100)).status).toBe(200);
  });

  it('finds a request’s limit by method and path, query ignored', () => {
    expect(bodyLimitFor('POST', '/api/links/bulk?x=1')).toBe(10 * 2 ** 20);
    expect(bodyLimitFor('PUT', '/api/links/bulk')).toBe(DEFAULT_BODY_LIMIT);
    expect(bodyLimitFor(undefined, undefined)).toBe(DEFAULT_BODY_LIMIT);
  });

  it('names limits in MiB', () => {
    expect(describeLimit(2 ** 20)).toBe('1 MiB');
    expect(describeLimit(10 * 2 ** 20)).toBe('10 MiB');
    expect(describeLimit(1000)).toBe('1000 bytes');
  });
});
