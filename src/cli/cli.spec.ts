import { ApiError } from '../common/errors/api-error.js';
import { ConfigError } from '../config/app-config.js';
import { CliError, failureMessage } from './cli.js';

// What the commands print for each refusal, on a real database: test/cli.e2e-spec.ts.
describe('failureMessage (the line after "shortlink: ")', () => {
  it("says any service's refusal (ApiError) by its detail alone, whatever its name", () => {
    const refusals = [
      ApiError.notFound('No account for nobody@example.test'),
      ApiError.accountExists('owner@example.test'),
      ApiError.validationFailed('Use at least 8 characters.', [
        { field: 'password', message: 'Use at least 8 characters.' },
      ]),
      ApiError.codeTaken('spring-sale'),
    ];

    expect(refusals.map(failureMessage)).toEqual([
      'No account for nobody@example.test',
      'An account for owner@example.test already exists',
      'Use at least 8 characters.',
      'The code "spring-sale" is already taken',
    ]);
  });

  it("says the CLI's own and the configuration's problems by their message", () => {
    expect(failureMessage(new CliError('No token with id x'))).toBe('No token with id x');
    expect(failureMessage(new ConfigError('Invalid configuration: PORT="abc" must be an integer number'))).toBe(
      'Invalid configuration: PORT="abc" must be an integer number',
    );
  });

  it('gives anything else its stack, for a bug report', () => {
    const bug = new TypeError('x is not a function');

    expect(failureMessage(bug)).toBe(bug.stack);
    expect(failureMessage(bug).split('\n').length).toBeGreaterThan(1);
    expect(failureMessage('thrown text')).toBe('thrown text');
  });
});
