import { Inject, Injectable, Logger } from '@nestjs/common';
import * as oidc from 'openid-client';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';

/** What a sign-in through the provider must bring back: kept in its single-use sign-in step. */
export interface OidcPending {
  state: string;
  nonce: string;
  codeVerifier: string;
  next: string;
}

/** The provider could not be reached (discovery or the token endpoint): a 503, not the person's fault. */
export class OidcUnavailableError extends Error {
  override name = 'OidcUnavailableError';
}

/** The provider's answer was refused; the message is for the person. */
export class OidcRefusedError extends Error {
  override name = 'OidcRefusedError';
}

/**
 * Single sign-on with an OpenID Connect provider (`openid-client`): the authorization code flow
 * with PKCE (S256), `state` and `nonce`. The provider's metadata is discovered on first use
 * and kept; a failed discovery is tried again on the next sign-in. The ID token is checked by
 * the library (signature, issuer, audience, expiry, nonce); the account is the provider's
 * verified email.
 */
@Injectable()
export class OidcService {
  private readonly logger = new Logger('SingleSignOn');
  private configuration?: Promise<oidc.Configuration>;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** The button's label ("Sign in with <name>"), or undefined when single sign-on is off. */
  get name(): string | undefined {
    return this.config.oidc?.name;
  }

  get redirectUri(): string {
    return `${this.config.shortBaseUrl}/login/oidc/callback`;
  }

  /** Where to send the browser, and what its return must match. */
  async start(next: string): Promise<{ url: string; pending: OidcPending }> {
    const configuration = await this.discover();
    const pending: OidcPending = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
      next,
    };
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri,
      scope: 'openid email',
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url: url.href, pending };
  }

  /**
   * The verified email of the person the provider sent back (`callbackQuery`: the query string
   * of the callback), checked against what `start` sent. OidcRefusedError for anything wrong.
   */
  async finish(callbackQuery: string, pending: OidcPending): Promise<string> {
    const configuration = await this.discover();
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(configuration, new URL(`${this.redirectUri}${callbackQuery}`), {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      if (isNetworkFailure(error)) throw new OidcUnavailableError(describe(error));
      throw new OidcRefusedError(describe(error));
    }
    const claims = tokens.claims();
    let email = claims?.email;
    let verified = claims?.email_verified;
    if (claims && (typeof email !== 'string' || verified === undefined)) {
      // Some providers keep the email for the userinfo endpoint.
      try {
        const info = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
        email = info.email;
        verified = info.email_verified;
      } catch (error) {
        throw new OidcRefusedError(`the provider did not give an email address (${describe(error)})`);
      }
    }
    if (typeof email !== 'string' || email === '')
      throw new OidcRefusedError('the provider did not give an email address');
    if (verified !== true) throw new OidcRefusedError(`the provider has not verified the address ${email}`);
    return email;
  }

  private discover(): Promise<oidc.Configuration> {
    const settings = this.config.oidc;
    if (!settings) return Promise.reject(new OidcUnavailableError('single sign-on is not configured'));
    this.configuration ??= oidc
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        { client_secret: settings.clientSecret, redirect_uris: [this.redirectUri] },
        undefined,
        // Plain http only for an issuer on loopback (a local provider; config refuses it elsewhere).
        settings.issuer.startsWith('http:') ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        this.configuration = undefined;
        this.logger.warn(`Could not discover ${settings.issuer}: ${describe(error)}`);
        throw new OidcUnavailableError(describe(error));
      });
    return this.configuration;
  }
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${message}${cause}`.slice(0, 300);
}

/** fetch's own failure (the provider unreachable), as opposed to an answer that was refused. */
function isNetworkFailure(error: unknown): boolean {
  return error instanceof TypeError && /fetch failed/i.test(error.message);
}
