import { classifyUserAgent } from '../clicks/visitors/user-agent.js';
import type { LinkRules } from '../links/link-cache.js';

/**
 * Where a visitor goes when the link has device targets: iPhones, iPads and iPods to `ios_url`,
 * Android devices to `android_url`, anything else (or a target left unset) to the link's `url`.
 * The operating system is bowser's reading of the `User-Agent`, through the classifier the click
 * labels use (and its cache of recent user agents). An iPad asking for desktop sites (Safari's
 * default since iPadOS 13) says it is a Mac, and goes to `url`: nothing in the request tells it apart.
 */
export function deviceTarget(rules: LinkRules, url: string, userAgent: string | undefined): string {
  if (rules.iosUrl === null && rules.androidUrl === null) return url;
  switch (classifyUserAgent(userAgent).os) {
    case 'iOS':
      return rules.iosUrl ?? url;
    case 'Android':
      return rules.androidUrl ?? url;
    default:
      return url;
  }
}
