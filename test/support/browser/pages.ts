import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { newClient } from '../factories.js';
import { PERSON_USER_AGENT } from './chromium.js';

/** The two sizes the browser specs check every page at. */
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
/** Both, named: `describe.each(SIZES)('… at %s size', (size, viewport) => …)`. */
export const SIZES: Array<[string, { width: number; height: number }]> = [
  ['desktop', DESKTOP],
  ['phone', PHONE],
];

/**
 * A page in a fresh browser profile on `baseURL`, as a person of their own uses it: at DESKTOP
 * size, with Chromium's own user agent (PERSON_USER_AGENT, not a bot's), from an address of their
 * own (`headers`, by default `newClient()`: the apps trust X-Forwarded-For, and sign-ups and
 * sign-ins count per address); `options` go last. The profile joins `contexts`, for the spec to
 * close at the end.
 */
export async function newPersonPage(
  browser: Browser,
  baseURL: string,
  contexts: BrowserContext[],
  options: BrowserContextOptions = {},
  headers: Record<string, string> = newClient(),
): Promise<Page> {
  const context = await browser.newContext({
    baseURL,
    viewport: DESKTOP,
    extraHTTPHeaders: headers,
    userAgent: PERSON_USER_AGENT,
    ...options,
  });
  contexts.push(context);
  return context.newPage();
}
