import { ApiError } from '../common/errors/api-error.js';
import { formErrors } from './pages.js';

const SIGNUP = { email: 'This email', password: 'The password' };

describe('formErrors', () => {
  it('words a field message as the form labels its field, with the advice for the error name', () => {
    expect(formErrors(ApiError.accountExists('owner@example.test'), SIGNUP)).toEqual({
      email: 'This email is already registered. Sign in instead.',
    });
    expect(formErrors(ApiError.codeTaken('spring-sale'), { custom_code: 'The custom code' })).toEqual({
      custom_code: 'The code "spring-sale" is already taken. Choose another one.',
    });
  });

  it('keeps a message written for people as it is', () => {
    const weak = ApiError.validationFailed('Use at least 8 characters.', [
      { field: 'password', message: 'Use at least 8 characters.' },
    ]);

    expect(formErrors(weak, SIGNUP)).toEqual({ password: 'Use at least 8 characters.' });
  });

  it('passes on what is not the form’s to show: other errors, and refusals of no field it has', () => {
    const bug = new TypeError('x is not a function');
    const gone = ApiError.notFound('No such account');

    expect(() => formErrors(bug, SIGNUP)).toThrow(bug);
    expect(() => formErrors(gone, SIGNUP)).toThrow(gone);
  });
});
