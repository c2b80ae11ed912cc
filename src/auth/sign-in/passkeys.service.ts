import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type * as SimpleWebAuthn from '@simplewebauthn/server';

/**
 * @simplewebauthn/server, loaded when the first passkey is added or used: it and its CBOR and
 * crypto dependencies cost about 4 MiB of heap, which a process that never sees a passkey keeps.
 */
let webAuthn: Promise<typeof SimpleWebAuthn> | undefined;
const loadWebAuthn = () => (webAuthn ??= import('@simplewebauthn/server'));
import { ApiError } from '../../common/errors/api-error.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';
import { SignInChangeNotices } from '../../accounts/sign-in-change-notices.js';
import { PasskeysRepository } from './passkeys.repository.js';

/** Passkeys an account may hold: plenty for every device a person owns. */
export const MAX_PASSKEYS = 20;
export const PASSKEY_NAME_MAX_LENGTH = 60;

export interface PasskeyView {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/**
 * Passkeys (WebAuthn, `@simplewebauthn/server`): discoverable credentials, user verification
 * preferred, no attestation. The relying party is SHORT_BASE_URL's host and the only origin
 * accepted is SHORT_BASE_URL's: a credential made for another site, or an answer signed on
 * another origin, is refused. The challenge of each ceremony is kept by the caller (a
 * single-use sign-in step) and passed back here. Refusals are `passkey_refused` ApiErrors whose
 * detail is said to the person as it is: 400 when adding a passkey, 401 when signing in.
 */
@Injectable()
export class PasskeysService {
  private readonly rpId: string;
  private readonly origin: string;

  constructor(
    private readonly passkeys: PasskeysRepository,
    private readonly notices: SignInChangeNotices,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    const base = new URL(config.shortBaseUrl);
    this.rpId = base.hostname;
    this.origin = base.origin;
  }

  async list(accountId: string): Promise<PasskeyView[]> {
    return (await this.passkeys.listForAccount(accountId)).map((key) => ({
      id: key.id,
      name: key.name,
      created_at: key.createdAt.toISOString(),
      last_used_at: key.lastUsedAt?.toISOString() ?? null,
    }));
  }

  /** Options for the browser's `navigator.credentials.create()`; the challenge is in them. */
  async registrationOptions(account: { id: string; email: string }): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = await this.passkeys.listForAccount(account.id);
    if (existing.length >= MAX_PASSKEYS)
      throw ApiError.passkeyRefused(`An account can have at most ${MAX_PASSKEYS} passkeys.`);
    const { generateRegistrationOptions } = await loadWebAuthn();
    return generateRegistrationOptions({
      rpName: 'shortlink',
      rpID: this.rpId,
      userName: account.email,
      userID: new TextEncoder().encode(account.id),
      attestationType: 'none',
      // The same authenticator twice would only be a duplicate.
      excludeCredentials: existing.map((key) => ({ id: key.id, transports: transportsOf(key.transports) })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
  }

  /** Checks the browser's answer against the challenge it was given and keeps the new passkey. */
  async register(accountId: string, name: string, response: unknown, expectedChallenge: string): Promise<void> {
    const label = name.trim();
    if (label === '' || label.length > PASSKEY_NAME_MAX_LENGTH) {
      throw ApiError.passkeyRefused(
        `Give the passkey a name of 1 to ${PASSKEY_NAME_MAX_LENGTH} characters, e.g. the device.`,
      );
    }
    if ((await this.passkeys.countForAccount(accountId)) >= MAX_PASSKEYS) {
      throw ApiError.passkeyRefused(`An account can have at most ${MAX_PASSKEYS} passkeys.`);
    }
    const { verifyRegistrationResponse } = await loadWebAuthn();
    let verified: Awaited<ReturnType<typeof SimpleWebAuthn.verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        expectedChallenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        requireUserVerification: false,
      });
    } catch (error) {
      throw ApiError.passkeyRefused(`The passkey could not be checked: ${describe(error)}`);
    }
    if (!verified.verified) throw ApiError.passkeyRefused('The passkey could not be checked.');
    const { credential } = verified.registrationInfo;
    const created = await this.passkeys.create({
      id: credential.id,
      accountId,
      name: label,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: (credential.transports ?? []).join(','),
    });
    if (!created) throw ApiError.passkeyRefused('This passkey is registered already.');
    await this.notices.tell(accountId, 'passkey_added');
  }

  /** Options for `navigator.credentials.get()`: any passkey of this site (discoverable). */
  async signInOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const { generateAuthenticationOptions } = await loadWebAuthn();
    return generateAuthenticationOptions({ rpID: this.rpId, userVerification: 'preferred', allowCredentials: [] });
  }

  /** The account a passkey answer signs in to, once checked against the challenge; else a 401 refusal. */
  async signIn(response: unknown, expectedChallenge: string): Promise<string> {
    const answer = response as Partial<AuthenticationResponseJSON> | null;
    const credentialId = typeof answer?.id === 'string' ? answer.id : undefined;
    const key = credentialId && credentialId.length <= 1024 ? await this.passkeys.findById(credentialId) : null;
    if (!key) throw signInRefused('This passkey is not registered here.');
    const { verifyAuthenticationResponse } = await loadWebAuthn();
    let verified: Awaited<ReturnType<typeof SimpleWebAuthn.verifyAuthenticationResponse>>;
    try {
      verified = await verifyAuthenticationResponse({
        response: answer as AuthenticationResponseJSON,
        expectedChallenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        credential: {
          id: key.id,
          publicKey: Buffer.from(key.publicKey, 'base64url'),
          counter: key.counter,
          transports: transportsOf(key.transports),
        },
        requireUserVerification: false,
      });
    } catch (error) {
      throw signInRefused(`The passkey could not be checked: ${describe(error)}`);
    }
    if (!verified.verified) throw signInRefused('The passkey could not be checked.');
    await this.passkeys.recordUse(key.id, verified.authenticationInfo.newCounter);
    return key.accountId;
  }

  /** Removes one of the account's passkeys; 404 `not_found` for any other id. */
  async remove(accountId: string, id: string): Promise<void> {
    if (!(await this.passkeys.delete(accountId, id))) throw ApiError.notFound('No such passkey');
    await this.notices.tell(accountId, 'passkey_removed');
  }
}

function signInRefused(detail: string): ApiError {
  return ApiError.passkeyRefused(detail, HttpStatus.UNAUTHORIZED);
}

function transportsOf(stored: string): AuthenticatorTransport[] {
  return stored === '' ? [] : (stored.split(',') as AuthenticatorTransport[]);
}

/** The library's reason, short (it can name the origin or challenge that did not match). */
function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 200);
}
