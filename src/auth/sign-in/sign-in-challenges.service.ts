import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { hashSessionId } from '../sessions/sessions.service.js';
import { SignInChallengesRepository } from './sign-in-challenges.repository.js';

/** What a step of a sign-in is waiting for (see the `SignInChallenge` model). */
export type ChallengePurpose = 'totp' | 'passkey-register' | 'passkey-sign-in' | 'oidc';

export interface Challenge<T> {
  accountId: string | null;
  data: T;
}

/** Long enough to open an authenticator app or a provider's page; short enough to be worthless later. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;

/**
 * Steps of a sign-in in progress, kept in the database so that any instance can finish what
 * another began, each usable once. The browser holds the raw id (a cookie); only its SHA-256 is
 * stored, as for sessions.
 */
@Injectable()
export class SignInChallenges {
  constructor(private readonly challenges: SignInChallengesRepository) {}

  /** Starts a step; returns the raw id for the browser. */
  async start(purpose: ChallengePurpose, accountId: string | null, data: object = {}): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    const now = Date.now();
    await this.challenges.deleteExpired(new Date(now));
    await this.challenges.create(hashSessionId(id), {
      purpose,
      accountId,
      data: JSON.stringify(data),
      expiresAt: new Date(now + CHALLENGE_TTL_MS),
    });
    return id;
  }

  /** The live step behind a raw id, for this purpose; null when unknown, expired or of another kind. */
  async find<T>(rawId: string | undefined, purpose: ChallengePurpose): Promise<Challenge<T> | null> {
    if (!rawId || !/^[A-Za-z0-9_-]{43}$/.test(rawId)) return null;
    const record = await this.challenges.find(hashSessionId(rawId));
    if (!record || record.purpose !== purpose || record.expiresAt.getTime() <= Date.now()) return null;
    return { accountId: record.accountId, data: JSON.parse(record.data) as T };
  }

  /** Uses the step up: its content, or null when it was not live or another request used it first. */
  async consume<T>(rawId: string | undefined, purpose: ChallengePurpose): Promise<Challenge<T> | null> {
    const challenge = await this.find<T>(rawId, purpose);
    if (!challenge || !(await this.challenges.delete(hashSessionId(rawId!)))) return null;
    return challenge;
  }
}
