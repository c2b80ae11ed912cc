import { Injectable, Logger } from '@nestjs/common';
import { hashToken, generateRawToken, tokenPrefix, looksLikeToken } from './token-secret.js';
import { isScope, SCOPES, type Scope } from './scopes.js';
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
  scopes: Scope[];
}

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

  /** Creates a token and returns its raw value: the only time it exists outside the caller. */
  async create(
    accountId: string,
    name: string,
    scopes: Scope[] = [...SCOPES],
  ): Promise<{ token: string; view: TokenView }> {
    const raw = generateRawToken();
    const record = await this.tokens.create({
      accountId,
      name,
      tokenHash: hashToken(raw),
      prefix: tokenPrefix(raw),
      scopes: [...new Set(scopes)].join(' '),
    });
    return { token: raw, view: toTokenView(record) };
  }

  async listForAccount(accountId: string): Promise<TokenView[]> {
    return (await this.tokens.listForAccount(accountId)).map(toTokenView);
  }

  async revoke(id: string): Promise<TokenView | null> {
    const record = await this.tokens.revoke(id, new Date());
    return record && toTokenView(record);
  }

  /** The token behind a raw value, or null when it is unknown or revoked. */
  async authenticate(raw: string): Promise<ActiveToken | null> {
    if (!looksLikeToken(raw)) return null;
    const record = await this.tokens.findUsableByHash(hashToken(raw));
    if (!record) return null;
    this.touchLater(record.id);
    return { id: record.id, accountId: record.accountId, scopes: scopesFromStorage(record.scopes) };
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
