import type { OpenAPIObject, OperationObject, ResponseObject } from '@nestjs/swagger';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { generateOpenApiJson } from '../src/openapi/openapi.generator.js';
import { routesOf } from './support/routes.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const committed = readFileSync(join(root, 'openapi.json'), 'utf8');
const document = JSON.parse(committed) as OpenAPIObject;
const run = promisify(execFile);

/**
 * The declared routes the API documents (the dashboard's pages are kept out), in OpenAPI's
 * terms: lower-case method, `{param}` path syntax.
 */
function documentedRoutesOf(testApp: TestApp) {
  return routesOf(testApp)
    .filter((route) => route.inApiDocs)
    .map((route) => ({
      ...route,
      method: route.method.toLowerCase(),
      path: route.path.replace(/:(\w+)/g, '{$1}'),
    }));
}

function operation(path: string, method: string): OperationObject {
  const found = (document.paths[path] as Record<string, OperationObject> | undefined)?.[method];
  if (!found) throw new Error(`${method.toUpperCase()} ${path} is not in openapi.json`);
  return found;
}

function response(path: string, method: string, status: number): ResponseObject {
  const found = operation(path, method).responses[status] as ResponseObject | undefined;
  if (!found) throw new Error(`${method.toUpperCase()} ${path} documents no ${status} response`);
  return found;
}

describe('openapi.json', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp();
  });

  afterAll(async () => {
    await testApp.close();
  });

  describe('is the document the code generates', () => {
    it('is byte for byte what the sources generate (run `npm run openapi` after an API change)', async () => {
      expect(await generateOpenApiJson()).toBe(committed);
    });

    it('is served at GET /openapi.json, byte for byte', async () => {
      const served = await testApp.request('/openapi.json');

      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await served.text()).toBe(committed);
    });

    it('was generated from the current src/metadata.ts, and that from the current sources', async () => {
      await expect(run(process.execPath, [join(root, 'scripts/generate-metadata.mjs'), '--check'])).resolves.toEqual(
        expect.objectContaining({ stdout: expect.stringContaining('up to date') }),
      );
    });

    it('is what the SDK types in sdk/schema.d.ts were generated from', async () => {
      await expect(run(process.execPath, [join(root, 'scripts/generate-sdk.mjs'), '--check'])).resolves.toEqual(
        expect.objectContaining({ stdout: expect.stringContaining('matches') }),
      );
    });
  });

  describe('describes every route', () => {
    it('documents each route the controllers declare, and nothing else', () => {
      const routes = documentedRoutesOf(testApp).map((route) => `${route.method} ${route.path}`);
      const documented = Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method} ${path}`),
      );

      expect(documented.sort()).toEqual(routes.sort());
    });

    it('gives every operation a unique operation id (the handler name), a tag, a summary and its responses', () => {
      const operations = Object.values(document.paths).flatMap((item) => Object.values(item) as OperationObject[]);
      const ids = operations.map((op) => op.operationId);

      expect(new Set(ids).size).toBe(operations.length);
      for (const op of operations) {
        expect(op).toEqual(
          expect.objectContaining({
            operationId: expect.stringMatching(/^[a-z][A-Za-z]+$/),
            tags: [expect.any(String)],
            summary: expect.any(String),
          }),
        );
        for (const [status, res] of Object.entries(op.responses)) {
          expect({ status, description: (res as ResponseObject).description }).toEqual({
            status,
            description: expect.stringMatching(/\S/),
          });
        }
      }
    });

    it("states each route's auth policy as its security requirements", () => {
      for (const route of documentedRoutesOf(testApp)) {
        const { security } = operation(route.path, route.method);
        const policy = route.policy;
        if (!policy) throw new Error(`${route.method} ${route.path} declares no auth policy`);
        if (policy.kind === 'signed-in') throw new Error(`${route.method} ${route.path} is a page in the API document`);
        const tokenSchemes = [
          { ApiKey: policy.kind === 'public' ? [] : policy.scopes },
          { Bearer: policy.kind === 'public' ? [] : policy.scopes },
        ];
        const expected = { public: [], required: tokenSchemes, optional: [...tokenSchemes, {}] }[policy.kind];

        expect({ route: `${route.method} ${route.path}`, security }).toEqual({
          route: `${route.method} ${route.path}`,
          security: expected,
        });
      }
    });

    it('declares both token schemes', () => {
      expect(document.components?.securitySchemes).toEqual({
        ApiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
        Bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      });
    });
  });

  describe('states the media types and headers of the contract', () => {
    it('GET /api/s answers text/plain, errors included', () => {
      for (const status of [200, 400, 429, 503]) {
        expect(Object.keys(response('/api/s', 'get', status).content ?? {})).toEqual(['text/plain']);
      }
    });

    it('GET and HEAD /{code} answer 302 with Location and Cache-Control, or a 404 problem', () => {
      for (const method of ['get', 'head']) {
        expect(Object.keys(response('/{code}', method, 302).headers ?? {}).sort()).toEqual([
          'Cache-Control',
          'Location',
        ]);
        expect(response('/{code}', method, 404).content).toHaveProperty(['application/problem+json']);
      }
    });

    it('POST /api/links answers 201 with a Location header', () => {
      expect(response('/api/links', 'post', 201).headers).toHaveProperty('Location');
    });

    it('every 4xx of the JSON endpoints is a problem+json body with the Problem schema', () => {
      for (const [path, item] of Object.entries(document.paths)) {
        if (path === '/api/s') continue;
        for (const op of Object.values(item) as OperationObject[]) {
          for (const [status, res] of Object.entries(op.responses)) {
            if (!/^[45]/.test(status)) continue;
            // A protected link's password form answers a wrong password (401), a form without its
            // token (403) and too many (429)
            // with the form again, and a disabled link (410) with a page: not a JSON endpoint.
            if (path === '/{code}' && (res as ResponseObject).content?.['text/html']) {
              expect(['401', '403', '410', '429']).toContain(status);
              // Gone: an expired link's problem details, or a disabled link's page.
              if (status === '410') {
                expect((res as ResponseObject).content).toEqual({
                  'application/problem+json': expect.objectContaining({
                    schema: { $ref: '#/components/schemas/Problem' },
                  }),
                  'text/html': { schema: { type: 'string' } },
                });
              }
              continue;
            }
            expect((res as ResponseObject).content).toEqual({
              'application/problem+json': expect.objectContaining({
                schema: { $ref: '#/components/schemas/Problem' },
              }),
            });
          }
        }
      }
    });

    it('bounds the pagination parameters of GET /api/links', () => {
      const params = operation('/api/links', 'get').parameters as { name: string; schema: object }[];

      expect(params.map(({ name, schema }) => ({ name, schema }))).toEqual([
        { name: 'limit', schema: expect.objectContaining({ type: 'integer', minimum: 1, maximum: 100, default: 20 }) },
        { name: 'offset', schema: expect.objectContaining({ type: 'integer', minimum: 0, default: 0 }) },
        { name: 'q', schema: expect.objectContaining({ type: 'string', minLength: 1, maxLength: 200 }) },
        {
          name: 'tag',
          schema: expect.objectContaining({
            type: 'string',
            minLength: 1,
            maxLength: 32,
            pattern: '^[A-Za-z0-9-]{1,32}$',
          }),
        },
      ]);
    });
  });
});
