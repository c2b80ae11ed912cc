import { randomBytes } from 'node:crypto';
import { generate } from 'otplib';
import type { Page } from 'playwright-core';
import { Browser } from './browser/form-browser.js';
import type { TestApp } from './test-app.js';

/** The password the specs' people sign up with: one the password rules accept. */
export const PASSWORD = 'correct horse battery';

/** An address no other test uses: `<prefix>-<8 hex>@example.test`. */
export function newEmail(prefix = 'person'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}@example.test`;
}

/**
 * Signs up on `/signup` as a browser without script would (form posts with their CSRF token),
 * with PASSWORD unless told; the browser is then signed in.
 */
export async function signUpWithForms(
  testApp: TestApp,
  email = newEmail(),
  browser = new Browser(testApp),
  password = PASSWORD,
): Promise<Browser> {
  const response = await browser.post('/signup', { email, password });
  expect({ status: response.status, location: response.headers.get('location') }).toEqual({
    status: 303,
    location: '/dashboard',
  });
  return browser;
}

/** Signs up in a real browser's page, as a person types it; the page is on the dashboard after. */
export async function signUpInPage(page: Page, email = newEmail(), password = PASSWORD): Promise<string> {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForURL('**/dashboard');
  return email;
}

/** The time step an authenticator app is at now (30 s each). */
export const currentStep = (): number => Math.floor(Date.now() / 30_000);

/** The code an authenticator app shows at time step `step`. */
export function codeAt(secret: string, step: number): Promise<string> {
  return generate({ secret, epoch: step * 30 + 1 });
}

/**
 * Turns two-factor sign-in on from the account page, as its owner does: reads the secret key the
 * page shows and confirms it with the code of the step it is then. The secret, that step and the
 * answer.
 */
export async function turnOnTwoFactor(browser: Browser): Promise<{ secret: string; step: number; answer: Response }> {
  const page = await (await browser.get('/account')).text();
  const secret = /aria-label="Secret key">([A-Z2-7]+)</.exec(page)![1];
  const step = currentStep();
  const answer = await browser.post(
    '/account/two-factor',
    { totp_secret: secret, code: await codeAt(secret, step) },
    undefined,
    '/account',
  );
  return { secret, step, answer };
}
