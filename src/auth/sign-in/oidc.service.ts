import { HttpStatus, Inject, Injectable, Logger } from '@nestjs/common';
import type * as OpenId from 'openid-client';

/**
 * openid-client, loaded on the first sign-in with the provider: without OIDC_ISSUER it is never
 * needed (it and its dependencies cost a few MiB of memory once loaded).
 */
let openIdClient: Promise<typeof OpenId> | undefined;
const loadOpenId = () => (openIdClient ??= import('openid-client'));
import { ApiError } from '../../common/errors/api-error.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';

/** What a sign-in through the provider must bring back: kept in its single-use sign-in step. */
export interface OidcPending {
  state: string;
  nonce: string;
  codeVerifier: string;
  next: string;
}

/**
 * Single sign-on with an OpenID Connect provider (`openid-client`): the authorization code flow
 * with PKCE (S256), `state` and `nonce`. The provider's metadata is discovered on first use
 * and kept; a failed discovery is tried again on the next sign-in. The ID token is checked by
 * the library: its signature against the provider's published keys (`jwks_uri`; openid-client
 * checks it only when asked, `enableNonRepudiationChecks`: TLS alone would vouch for the token
 * endpoint, not for the token), its algorithm against the provider's metadata (an asymmetric
 * one: never `none` or a MAC), issuer, audience (and `azp`), expiry and issue time, and nonce;
 * the account is the provider's verified email. It refuses with ApiErrors: `sso_unavailable` (404 when it is not set up, 503
 * when the provider cannot be reached: not the person's fault) and `unauthorized` (401, the
 * provider's answer refused, the detail saying why for the person).
 */
@Injectable()
export class OidcService {
  private readonly logger = new Logger('SingleSignOn');
  private configuration?: Promise<OpenId.Configuration>;

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
    const configuration = await this.discover('Sign in with your password, or try again later.');
    const oidc = await loadOpenId();
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
   * of the callback), checked against what `start` sent; a 401 `unauthorized` for anything wrong.
   */
  async finish(callbackQuery: string, pending: OidcPending): Promise<string> {
    const configuration = await this.discover('Try again later.');
    const oidc = await loadOpenId();
    let tokens: Awaited<ReturnType<typeof OpenId.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(configuration, new URL(`${this.redirectUri}${callbackQuery}`), {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      if (isNetworkFailure(error)) throw this.unreachable('Try again later.');
      throw ApiError.unauthorized(describe(error));
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
        throw ApiError.unauthorized(`the provider did not give an email address (${describe(error)})`);
      }
    }
    if (typeof email !== 'string' || email === '')
      throw ApiError.unauthorized('the provider did not give an email address');
    if (verified !== true) throw ApiError.unauthorized(`the provider has not verified the address ${email}`);
    return email;
  }

  /** A 404 `sso_unavailable` when single sign-on is not set up on this server. */
  assertSetUp(): void {
    if (!this.config.oidc) throw notSetUp();
  }

  /** The provider could not be reached: a 503 with what the person can do (`advice`). */
  private unreachable(advice: string): ApiError {
    const provider = this.name ?? 'The provider';
    return ApiError.ssoUnavailable(
      `${provider} cannot be reached right now. ${advice}`,
      HttpStatus.SERVICE_UNAVAILABLE,
    );
  }

  private async discover(advice: string): Promise<OpenId.Configuration> {
    const settings = this.config.oidc;
    if (!settings) throw notSetUp();
    const oidc = await loadOpenId();
    this.configuration ??= oidc
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        { client_secret: settings.clientSecret, redirect_uris: [this.redirectUri] },
        undefined,
        {
          execute: [
            // Every ID token's signature is checked against the provider's JWKS.
            oidc.enableNonRepudiationChecks,
            // Plain http only for an issuer on loopback (a local provider; config refuses it elsewhere).
            ...(settings.issuer.startsWith('http:') ? [oidc.allowInsecureRequests] : []),
          ],
        },
      )
      .catch((error: unknown) => {
        this.configuration = undefined;
        this.logger.warn(`Could not discover ${settings.issuer}: ${describe(error)}`);
        throw error;
      });
    try {
      return await this.configuration;
    } catch {
      throw this.unreachable(advice);
    }
  }
}

function notSetUp(): ApiError {
  return ApiError.ssoUnavailable('Single sign-on is not set up on this server.', HttpStatus.NOT_FOUND);
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
