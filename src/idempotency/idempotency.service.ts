import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { ApiError } from '../common/errors/api-error.js';
import type { Problem } from '../common/errors/problem.js';
import { apiErrorProblem } from '../common/errors/problem.js';
import { IdempotencyRepository } from './idempotency.repository.js';

/** How long a key answers retries (and cannot be used for another request). */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A first call still "running" after this long died with its instance: a retry may take it over.
 * Far longer than any creating call (a 1000-item bulk call takes well under a second).
 */
export const STALE_CALL_MS = 5 * 60 * 1000;
/** How often expired records are deleted. */
const CLEANUP_INTERVAL_MS = 60 * 60 * 1000;

/** 1 to 255 visible ASCII characters (no spaces), as the contract defines a key. */
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/** The answer of a creating call, as stored and replayed. */
export interface IdempotentAnswer {
  status: number;
  body: unknown;
  location: string | null;
  /** True when this is a stored answer, not a new call. */
  replayed: boolean;
}

/** Checks an `Idempotency-Key` header value; returns the key or throws a 400. */
export function checkIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !KEY_SHAPE.test(value)) {
    const message = 'Idempotency-Key must be 1 to 255 visible ASCII characters, without spaces, sent once';
    throw new ApiError(400, 'validation_failed', message, [{ field: 'Idempotency-Key', message }]);
  }
  return value;
}

/**
 * What a retry must repeat: the operation and the body. JSON re-serialised, so a client may
 * re-encode the same body differently (spacing); member order counts.
 */
export function requestFingerprint(method: string, route: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${route}\n${JSON.stringify(body ?? null)}`).digest('hex');
}

/**
 * Idempotency keys on creating calls: the first call with a key runs and its answer is stored;
 * a retry with the same key and request within 24 hours gets that answer again and creates
 * nothing; the same key with another request is 422 `idempotency_key_reused`; a retry while the
 * first call still runs is 409 `idempotency_key_in_use`. Keys are per account. Answers that
 * were the client's doing (2xx, 4xx) are stored; a failure of ours (5xx, a lost database) is
 * not, so the retry runs the call afresh.
 */
@Injectable()
export class IdempotencyService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(IdempotencyService.name);
  private cleanup?: NodeJS.Timeout;

  constructor(private readonly records: IdempotencyRepository) {}

  async execute(
    accountId: string,
    key: string,
    fingerprint: string,
    run: () => Promise<Omit<IdempotentAnswer, 'replayed'>>,
  ): Promise<IdempotentAnswer> {
    const now = new Date();
    const stored = await this.begin(accountId, key, fingerprint, now);
    if (stored) return stored;
    let answer: Omit<IdempotentAnswer, 'replayed'>;
    try {
      answer = await run();
    } catch (error) {
      if (error instanceof ApiError && error.getStatus() < 500) {
        await this.records.complete(accountId, key, {
          status: error.getStatus(),
          response: JSON.stringify(apiErrorProblem(error)),
          location: null,
        });
      } else {
        await this.records.release(accountId, key).catch(() => undefined);
      }
      throw error;
    }
    await this.records.complete(accountId, key, {
      status: answer.status,
      response: JSON.stringify(answer.body),
      location: answer.location,
    });
    return { ...answer, replayed: false };
  }

  /**
   * Claims the key for a new call (undefined: go ahead), or answers the retry from the stored
   * answer, or refuses it (422, 409).
   */
  private async begin(accountId: string, key: string, fingerprint: string, now: Date): Promise<IdempotentAnswer | undefined> {
    const expiresAt = new Date(now.getTime() + IDEMPOTENCY_KEY_TTL_MS);
    if (await this.records.claim(accountId, key, fingerprint, now, expiresAt)) return undefined;
    // An expired record (not cleaned up yet) frees the key.
    await this.records.deleteIfExpired(accountId, key, now);
    if (await this.records.claim(accountId, key, fingerprint, now, expiresAt)) return undefined;

    const record = await this.records.find(accountId, key);
    // Released by a failing first call in between: the client may simply retry.
    if (!record) throw inUse();
    if (record.requestHash !== fingerprint) {
      throw new ApiError(
        422,
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request in the last 24 hours',
      );
    }
    if (record.status === null || record.response === null) {
      const stale = new Date(now.getTime() - STALE_CALL_MS);
      if (record.createdAt < stale && (await this.records.takeOver(accountId, key, stale, now))) {
        this.logger.warn('An idempotent call whose first attempt never finished runs again');
        return undefined;
      }
      throw inUse();
    }
    if (record.status >= 400) {
      const problem = JSON.parse(record.response) as Problem;
      throw new ApiError(record.status, problem.error, problem.detail, problem.errors);
    }
    return { status: record.status, body: JSON.parse(record.response), location: record.location, replayed: true };
  }

  onModuleInit(): void {
    this.cleanup = setInterval(() => void this.deleteExpired(), CLEANUP_INTERVAL_MS);
    this.cleanup.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.cleanup);
  }

  /** Deletes expired records (hourly; also callable on its own). */
  async deleteExpired(now = new Date()): Promise<number> {
    try {
      return await this.records.deleteExpired(now);
    } catch (error) {
      this.logger.warn(`Could not delete expired idempotency keys: ${String(error)}`);
      return 0;
    }
  }
}

function inUse(): ApiError {
  return new ApiError(
    409,
    'idempotency_key_in_use',
    'A request with this Idempotency-Key is still being processed; retry when it has finished',
  );
}
