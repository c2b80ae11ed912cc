/**
 * What the guard refuses on a page, for the page error filter to answer
 * as a person expects: the sign-in page (which brings them back to `returnTo`), or a page saying
 * the form expired. Not domain errors (ApiError): no service throws them and no API client or
 * CLI user ever sees them; they are about the browser's cookies and forms, and one of them is
 * answered with a redirect, not an error.
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
