import { DashboardCookies } from '../../../src/auth/sessions/dashboard-cookies.js';
import { SessionsService } from '../../../src/auth/sessions/sessions.service.js';
import { newClient } from '../factories.js';
import type { TestApp } from '../test-app.js';

/** A browser's cookie jar and CSRF handling, over plain fetch. */
export class Browser {
  readonly cookies = new Map<string, string>();
  /**
   * `extraHeaders`: by default `newClient()`, a client address of its own for the sign-in limits
   * (the apps run with TRUST_PROXY), as each person signing up comes from somewhere else.
   */
  constructor(
    private readonly testApp: TestApp,
    private extraHeaders: Record<string, string> = newClient(),
  ) {}

  /** From now on, requests come from another client address (e.g. `newClient()`). */
  moveTo(headers: Record<string, string>): void {
    this.extraHeaders = headers;
  }

  async get(path: string): Promise<Response> {
    return this.keep(await this.testApp.request(path, { headers: this.headers(), redirect: 'manual' }));
  }

  /** Posts a form the way the page would (with the page's CSRF token unless `csrf` is given). */
  async post(
    path: string,
    fields: Record<string, string | string[]>,
    csrf?: string,
    formPage = path,
  ): Promise<Response> {
    const token = csrf ?? (await this.csrfFrom(formPage));
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries({ _csrf: token, ...fields })) {
      for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
    }
    return this.keep(
      await this.testApp.request(path, {
        method: 'POST',
        headers: { ...this.headers(), 'content-type': 'application/x-www-form-urlencoded' },
        body: body.toString(),
        redirect: 'manual',
      }),
    );
  }

  async csrfFrom(path: string): Promise<string> {
    const html = await (await this.get(path)).text();
    const match = /name="_csrf" value="([^"]+)"/.exec(html);
    if (!match?.[1]) throw new Error(`No CSRF token on ${path}`);
    return match[1];
  }

  private headers(): Record<string, string> {
    const cookie: Record<string, string> = this.cookies.size
      ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') }
      : {};
    return { ...this.extraHeaders, ...cookie };
  }

  private keep(response: Response): Response {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const [name = '', value = ''] = pair.split('=');
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
    return response;
  }
}

/** A browser signed in to the account (a session started by the service, as signing in does). */
export async function signedInBrowser(testApp: TestApp, accountId: string): Promise<Browser> {
  const browser = new Browser(testApp);
  const id = await testApp.app.get(SessionsService).start(accountId);
  browser.cookies.set(testApp.app.get(DashboardCookies).name('session'), id);
  return browser;
}
