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
import { clientAddress } from './client-address.js';
import { CountryLookup } from './country-lookup.js';
import { UserAgentClassifier, type Device } from './user-agent.js';

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
 * Labels clicks for the click pipeline, which calls it when it flushes (each call can cost a
 * user-agent parse and a database lookup, cached both); the redirect itself only keeps the facts.
 */
@Injectable()
export class VisitorLabels {
  private readonly trustProxy: boolean;
  private readonly userAgents = new UserAgentClassifier();
  private readonly countries = new CountryLookup();

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.trustProxy = config.trustProxy;
  }

  /** Never throws. A bot's click gets no other label, and costs no country lookup. */
  label(facts: ClickFacts): VisitorLabel {
    const agent = this.userAgents.classify(facts.userAgent);
    if (agent.bot) return BOT;
    return {
      bot: false,
      country: this.countries.countryOf(clientAddress(facts.forwardedFor, facts.remoteAddress, this.trustProxy)),
      device: agent.device,
      browser: agent.browser,
      os: agent.os,
    };
  }
}
