import { ApiError } from '../common/errors/api-error.js';
import type { SessionsService } from '../auth/sessions/sessions.service.js';
import type { LinksService } from '../links/links.service.js';
import type { LinkModeration } from '../links/moderation/link-moderation.service.js';
import type { AccountRecord, AccountsRepository } from './accounts.repository.js';
import { AccountsService } from './accounts.service.js';
import type { SignInChangeNotices } from './sign-in-change-notices.js';

/** Accounts kept in a map, by id: what the service asks of its repository here. */
function inMemoryAccounts(...existing: AccountRecord[]) {
  const accounts = new Map(existing.map((account) => [account.id, account]));
  const byEmail = (email: string) => [...accounts.values()].find((account) => account.email === email) ?? null;
  return {
    findById: (id: string) => Promise.resolve(accounts.get(id) ?? null),
    findByEmail: (email: string) => Promise.resolve(byEmail(email)),
    create: (email: string, passwordHash: string | null = null) => {
      if (byEmail(email)) return Promise.resolve(null);
      const account = { ...owner, id: `id-${accounts.size + 1}`, email, passwordHash };
      accounts.set(account.id, account);
      return Promise.resolve(account);
    },
  };
}

const owner: AccountRecord = {
  id: 'owner',
  email: 'owner@example.test',
  passwordHash: null,
  passwordSetAt: null,
  createdAt: new Date(0),
  isAdmin: false,
  disabledAt: null,
  emailUnverified: false,
  disabledReason: null,
  linkCount: 0,
};

/** The refusal a call ends in, to check its stable name, status and texts. */
async function refusal(call: Promise<unknown>): Promise<ApiError> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('AccountsService refusals (ApiErrors with stable names)', () => {
  let sut: AccountsService;

  beforeEach(() => {
    sut = new AccountsService(
      inMemoryAccounts(owner) as unknown as AccountsRepository,
      {} as SessionsService,
      {} as LinksService,
      {} as LinkModeration,
      { tell: () => Promise.resolve() } as unknown as SignInChangeNotices,
    );
  });

  it('get: the account, or 404 not_found "No such account"', async () => {
    await expect(sut.get('owner')).resolves.toEqual({
      id: 'owner',
      email: 'owner@example.test',
      created_at: '1970-01-01T00:00:00.000Z',
      is_admin: false,
      disabled_at: null,
    });

    const error = await refusal(sut.get('gone'));
    expect({ status: error.getStatus(), name: error.errorName, detail: error.detail }).toEqual({
      status: 404,
      name: 'not_found',
      detail: 'No such account',
    });
  });

  it('create: 409 account_exists for a registered address (any case), with the email field', async () => {
    const error = await refusal(sut.create('OWNER@example.test'));

    expect({ status: error.getStatus(), name: error.errorName, detail: error.detail }).toEqual({
      status: 409,
      name: 'account_exists',
      detail: 'An account for owner@example.test already exists',
    });
    expect(error.fieldErrors).toEqual([{ field: 'email', message: 'email is already registered' }]);
  });

  it('create and register: 400 validation_failed on the email field for what is not an address', async () => {
    const created = await refusal(sut.create('not-an-email'));
    const registered = await refusal(sut.register('two words@example.test', 'correct horse battery'));

    expect({ name: created.errorName, detail: created.detail }).toEqual({
      name: 'validation_failed',
      detail: 'Not an e-mail address: not-an-email',
    });
    for (const error of [created, registered]) {
      expect(error.getStatus()).toBe(400);
      expect(error.fieldErrors).toEqual([{ field: 'email', message: 'Enter an email address like name@example.com.' }]);
    }
  });

  it('register: 400 validation_failed on the password field, the rule as the detail', async () => {
    const error = await refusal(sut.register('new@example.test', 'short'));

    expect({ status: error.getStatus(), name: error.errorName, detail: error.detail }).toEqual({
      status: 400,
      name: 'validation_failed',
      detail: 'Use at least 8 characters.',
    });
    expect(error.fieldErrors).toEqual([{ field: 'password', message: 'Use at least 8 characters.' }]);
  });

  it('by e-mail address: 404 not_found naming the address', async () => {
    for (const call of [
      sut.setPasswordByEmail('nobody@example.test', 'correct horse battery'),
      sut.resetTwoFactorByEmail('nobody@example.test'),
    ]) {
      const error = await refusal(call);
      expect({ status: error.getStatus(), name: error.errorName, detail: error.detail }).toEqual({
        status: 404,
        name: 'not_found',
        detail: 'No account for nobody@example.test',
      });
    }
  });
});
