import type { Problem } from '../../sdk/client.js';

/**
 * The answer is the problem an API client is promised: this status, `application/problem+json`,
 * this stable `error` name, and a title and detail for people. Returns the problem.
 */
export async function expectProblem(response: Response, status: number, error: string): Promise<Problem> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  const body = (await response.json()) as Problem;
  expect(body).toMatchObject({ type: 'about:blank', status, error });
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  return body;
}
