import { randomBytes } from 'node:crypto';
import { AccountsService } from '../../src/accounts/accounts.service.js';
import { ADMIN_SCOPE, SCOPES, type Scope } from '../../src/auth/scopes.js';
import { TokensService } from '../../src/auth/tokens.service.js';
import type { TestApp } from './test-app.js';

export interface TestAccount {
  accountId: string;
  email: string;
  token: string;
  tokenId: string;
  /** Headers carrying the token, in either accepted form. */
  apiKey: { 'x-api-key': string };
  bearer: { authorization: string };
}

/** An account with one token (both scopes unless told otherwise), made through the services. */
export function createAccountWithToken(testApp: TestApp, scopes: Scope[] = [...SCOPES]): Promise<TestAccount> {
  return accountWithToken(testApp, 'user', false, scopes);
}

/**
 * An admin of the instance with one token holding `admin` and the default scopes (or `scopes`),
 * made through the services.
 */
export function createAdminWithToken(
  testApp: TestApp,
  scopes: Scope[] = [...SCOPES, ADMIN_SCOPE],
): Promise<TestAccount> {
  return accountWithToken(testApp, 'admin', true, scopes);
}

async function accountWithToken(
  testApp: TestApp,
  prefix: string,
  admin: boolean,
  scopes: Scope[],
): Promise<TestAccount> {
  const email = `${prefix}-${randomBytes(4).toString('hex')}@example.test`;
  const accounts = testApp.app.get(AccountsService);
  const account = admin ? await accounts.create(email, { admin: true }) : await accounts.create(email);
  const { token, view } = await testApp.app.get(TokensService).create(account.id, 'test', scopes);
  return {
    accountId: account.id,
    email,
    token,
    tokenId: view.id,
    apiKey: { 'x-api-key': token },
    bearer: { authorization: `Bearer ${token}` },
  };
}

let nextClientAddress = 1;
/**
 * Headers of a client with an address of its own (the test apps trust one proxy hop and read
 * `X-Forwarded-For`), so rate-limit counters never mix between tests.
 */
export function newClient(): { 'x-forwarded-for': string } {
  const n = nextClientAddress++;
  return { 'x-forwarded-for': `198.51.${Math.floor(n / 250)}.${(n % 250) + 1}` };
}
