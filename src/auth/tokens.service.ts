import { Injectable, Logger } from '@nestjs/common';
import { ApiError, type FieldError } from '../common/errors/api-error.js';
import { hashToken, generateRawToken, tokenPrefix, looksLikeToken } from './token-secret.js';
import { ADMIN_SCOPE, ALL_SCOPES, isScope, SCOPES, type Scope } from './scopes.js';
import { TokensRepository, type TokenRecord } from './tokens.repository.js';

/** A token as its owner may see it: never the raw value or its hash. */
export interface TokenView {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface ActiveToken {
  id: string;
  accountId: string;
  /** Its scopes, without `admin` unless the account is an admin now. */
  scopes: Scope[];
  /** The account was disabled by an admin: the token is refused (403 `account_disabled`). */
  accountDisabled: boolean;
  /** The account's email is proved or taken as given (SIGNUP=verify): else it creates nothing. */
  emailVerified: boolean;
}

/** A token's name: what its owner tells tokens apart by. */
export const TOKEN_NAME_MAX_LENGTH = 100;

// Writing last_used_at on every request would turn each API read into a write; once a minute
// per token is precise enough for a dashboard.
const TOUCH_INTERVAL_MS = 60_000;

function toTokenView(token: TokenRecord): TokenView {
  return {
    id: token.id,
    name: token.name,
    prefix: token.prefix,
    scopes: scopesFromStorage(token.scopes),
    created_at: token.createdAt.toISOString(),
    last_used_at: token.lastUsedAt?.toISOString() ?? null,
    revoked_at: token.revokedAt?.toISOString() ?? null,
  };
}

function scopesFromStorage(stored: string): Scope[] {
  return stored.split(' ').filter(isScope);
}

@Injectable()
export class TokensService {
  private readonly logger = new Logger(TokensService.name);
  private readonly lastTouched = new Map<string, number>();

  constructor(private readonly tokens: TokensRepository) {}

  /**
   * Creates a token and returns its raw value: the only time it exists outside the caller. The
   * name is trimmed; a missing or overlong name, no scope or an unknown one is a
   * `validation_failed` error naming the field (the dashboard and the CLI show its message).
   */
  async create(
    accountId: string,
    name: string,
    scopes: readonly string[] = SCOPES,
  ): Promise<{ token: string; view: TokenView }> {
    const label = name.trim();
    const problems: FieldError[] = [];
    if (label === '')
      problems.push({ field: 'name', message: 'Give the token a name, e.g. the script or app that will use it.' });
    else if (label.length > TOKEN_NAME_MAX_LENGTH) {
      problems.push({ field: 'name', message: `Use at most ${TOKEN_NAME_MAX_LENGTH} characters for the name.` });
    }
    const unknown = scopes.filter((scope) => !isScope(scope));
    if (unknown.length > 0) {
      problems.push({
        field: 'scopes',
        message: `Unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}; valid scopes: ${ALL_SCOPES.join(', ')}.`,
      });
    } else if (scopes.length === 0) {
      problems.push({ field: 'scopes', message: `Choose at least one scope: ${SCOPES.join(', ')}.` });
    } else if (scopes.includes(ADMIN_SCOPE) && !(await this.tokens.isAdmin(accountId))) {
      problems.push({ field: 'scopes', message: `Only an admin's token may hold the scope ${ADMIN_SCOPE}.` });
    }
    if (problems.length > 0) throw ApiError.validationFailed('The token was not created', problems);

    const raw = generateRawToken();
    const record = await this.tokens.create({
      accountId,
      name: label,
      tokenHash: hashToken(raw),
      prefix: tokenPrefix(raw),
      scopes: [...new Set(scopes)].join(' '),
    });
    return { token: raw, view: toTokenView(record) };
  }

  async listForAccount(accountId: string): Promise<TokenView[]> {
    return (await this.tokens.listForAccount(accountId)).map(toTokenView);
  }

  /** Revokes any token by id (the CLI, run by the instance's operator); null when there is none. */
  async revoke(id: string): Promise<TokenView | null> {
    const record = await this.tokens.revoke(id, new Date());
    return record && toTokenView(record);
  }

  /** Revokes one of the account's own tokens: another account's, or none, is `not_found`. */
  async revokeForAccount(accountId: string, id: string): Promise<TokenView> {
    const own = await this.tokens.listForAccount(accountId);
    if (!own.some((token) => token.id === id)) throw ApiError.notFound('No such token');
    const revoked = await this.revoke(id);
    if (!revoked) throw ApiError.notFound('No such token');
    return revoked;
  }

  /** The token behind a raw value, or null when it is unknown or revoked. */
  async authenticate(raw: string): Promise<ActiveToken | null> {
    if (!looksLikeToken(raw)) return null;
    const record = await this.tokens.findUsableByHash(hashToken(raw));
    if (!record) return null;
    this.touchLater(record.id);
    const scopes = scopesFromStorage(record.scopes);
    return {
      id: record.id,
      accountId: record.accountId,
      // An admin's token stops administering the moment the account stops being an admin.
      scopes: record.isAdmin ? scopes : scopes.filter((scope) => scope !== ADMIN_SCOPE),
      accountDisabled: Boolean(record.accountDisabled),
      emailVerified: Boolean(record.emailVerified),
    };
  }

  private touchLater(id: string): void {
    const now = Date.now();
    if (now - (this.lastTouched.get(id) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.lastTouched.set(id, now);
    this.tokens.touch(id, new Date(now)).catch((error: unknown) => {
      this.logger.warn(`Could not record token use: ${String(error)}`);
    });
  }
}
