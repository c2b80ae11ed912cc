import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';

type CookieKind = 'session' | 'csrf' | 'device' | 'challenge';

const BASE_NAMES: Record<CookieKind, string> = {
  session: 'shortlink_session',
  csrf: 'shortlink_csrf',
  device: 'shortlink_device',
  // A sign-in in progress (password proved, second factor expected; a passkey or OIDC step).
  challenge: 'shortlink_signin',
};

/**
 * The dashboard's cookies, named and set in one place. Over https their names carry the
 * `__Host-` prefix: browsers then accept them only with `Secure`, `Path=/` and no `Domain`, so a
 * page on a sibling subdomain (or a plain-http answer) cannot plant or overwrite them.
 */
@Injectable()
export class DashboardCookies {
  readonly secure: boolean;
  private readonly names: Record<CookieKind, string>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.secure = config.shortBaseUrl.startsWith('https:');
    const prefix = this.secure ? '__Host-' : '';
    this.names = {
      session: prefix + BASE_NAMES.session,
      csrf: prefix + BASE_NAMES.csrf,
      device: prefix + BASE_NAMES.device,
      challenge: prefix + BASE_NAMES.challenge,
    };
  }

  name(kind: CookieKind): string {
    return this.names[kind];
  }

  read(request: FastifyRequest, kind: CookieKind): string | undefined {
    return request.cookies?.[this.names[kind]];
  }

  /** HttpOnly, SameSite=Lax, Path=/, Secure over https; `maxAgeSeconds` unset: until the browser closes. */
  set(reply: FastifyReply, kind: CookieKind, value: string, maxAgeSeconds?: number): void {
    void reply.setCookie(this.names[kind], value, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secure,
      ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
    });
  }

  clear(reply: FastifyReply, kind: CookieKind): void {
    void reply.clearCookie(this.names[kind], { path: '/', secure: this.secure, httpOnly: true, sameSite: 'lax' });
  }
}
