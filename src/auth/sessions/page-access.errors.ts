/**
 * What the guard refuses on a page, for the page error filter to answer as a person expects:
 * the sign-in page (which brings them back to `returnTo`), or a page saying the form expired.
 */
export class SignInRequiredError extends Error {
  constructor(readonly returnTo: string) {
    super('This page needs a signed-in session');
  }
}

export class FormTokenRejectedError extends Error {
  constructor() {
    super('This form has expired or did not come from this site. Go back, reload the page and try again.');
  }
}
