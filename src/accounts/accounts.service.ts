import { Injectable } from '@nestjs/common';
import { AccountsRepository, type AccountRecord } from './accounts.repository.js';

export interface AccountView {
  id: string;
  email: string;
  created_at: string;
}

export class AccountExistsError extends Error {
  override name = 'AccountExistsError';
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function toAccountView(account: AccountRecord): AccountView {
  return { id: account.id, email: account.email, created_at: account.createdAt.toISOString() };
}

/** E-mail addresses are compared case-insensitively, so they are stored lower-cased. */
function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

@Injectable()
export class AccountsService {
  constructor(private readonly accounts: AccountsRepository) {}

  async create(email: string): Promise<AccountView> {
    const normalized = normalizeEmail(email);
    if (!EMAIL.test(normalized)) throw new RangeError(`Not an e-mail address: ${email}`);
    const account = await this.accounts.create(normalized);
    if (!account) throw new AccountExistsError(`An account for ${normalized} already exists`);
    return toAccountView(account);
  }

  async findByEmail(email: string): Promise<AccountView | null> {
    const account = await this.accounts.findByEmail(normalizeEmail(email));
    return account && toAccountView(account);
  }
}
