/**
 * The visitor labels of a click (issue 30, "Clicks people can trust"): whether it came from a bot
 * and, for a person, the country, device, browser and operating system.
 *
 * Only these labels are kept, each from a small fixed vocabulary (ISO country codes and `ZZ`;
 * four devices; bowser's browser and system names and `Other`). The facts they come from, the
 * client's IP address (socket or `X-Forwarded-For`) and its `User-Agent`, are never stored, logged
 * or sent anywhere: they live in memory only, where the click pipeline keeps a click's facts until
 * its flush labels them and then drops them. Nothing here writes or logs them; the caches behind
 * this hold a bounded number of them as keys, in memory.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';
import { clientAddress, MAX_FORWARDED_FOR_LENGTH } from './client-address.js';
import { CountryLookup } from './country-lookup.js';
import { UserAgentClassifier, type Device, type UserAgentClass } from './user-agent.js';

/** What a redirect saw of its client, as the request gave it. */
export interface ClickFacts {
  userAgent?: string;
  /** The `X-Forwarded-For` header: read only with `TRUST_PROXY`. */
  forwardedFor?: string | string[];
  /** The socket's peer address. */
  remoteAddress?: string;
}

export type VisitorLabel =
  | { readonly bot: true }
  | {
      readonly bot: false;
      /** ISO 3166-1 alpha-2, `ZZ` when unknown. */
      readonly country: string;
      readonly device: Device;
      readonly browser: string;
      readonly os: string;
    };

const BOT: VisitorLabel = Object.freeze({ bot: true });

/**
 * Labels clicks for the click pipeline (ClickCounter). The redirect only keeps the facts, as a
 * user agent and a `clientKey`, in memory; the counter's flush labels them here (each call can
 * cost a user-agent parse and a database lookup, cached both).
 */
@Injectable()
export class VisitorLabels {
  private readonly trustProxy: boolean;
  private readonly userAgents = new UserAgentClassifier();
  private readonly countries = new CountryLookup();

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'trustProxy'>) {
    this.trustProxy = config.trustProxy;
  }

  /**
   * What a redirect keeps of its client until the flush, as one string, in constant time and
   * mostly without copying: the socket's address (a string the socket already holds) or, behind
   * a trusted proxy, the start of `X-Forwarded-For` (as much as `clientAddress` reads, and one
   * character more so it can tell the header went on) and the socket's address after a newline
   * (which no header value can hold). `countryOfClient` takes it back apart.
   */
  clientKey(forwardedFor: string | undefined, remoteAddress: string | undefined): string {
    if (!this.trustProxy || forwardedFor === undefined) return remoteAddress ?? '';
    const header =
      forwardedFor.length > MAX_FORWARDED_FOR_LENGTH
        ? forwardedFor.slice(0, MAX_FORWARDED_FOR_LENGTH + 1)
        : forwardedFor;
    return `${header}\n${remoteAddress ?? ''}`;
  }

  /** The country of a `clientKey`'s client (`ZZ` when unknown). Never throws. */
  countryOfClient(key: string): string {
    const newline = key.indexOf('\n');
    const address =
      newline === -1
        ? clientAddress(undefined, key === '' ? undefined : key, false)
        : clientAddress(key.slice(0, newline), key.slice(newline + 1) || undefined, this.trustProxy);
    return this.countries.countryOf(address);
  }

  /** Whether a user agent is a bot's and, if not, its device, browser and system (cached). Never throws. */
  classify(userAgent: string | undefined): UserAgentClass {
    return this.userAgents.classify(userAgent);
  }

  /** Never throws. A bot's click gets no other label, and costs no country lookup. */
  label(facts: ClickFacts): VisitorLabel {
    const agent = this.userAgents.classify(facts.userAgent);
    if (agent.bot) return BOT;
    const forwardedFor = Array.isArray(facts.forwardedFor) ? facts.forwardedFor[0] : facts.forwardedFor;
    return {
      bot: false,
      country: this.countryOfClient(this.clientKey(forwardedFor, facts.remoteAddress)),
      device: agent.device,
      browser: agent.browser,
      os: agent.os,
    };
  }
}
