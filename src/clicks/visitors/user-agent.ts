// bowser: MIT. isbot: Unlicense (public domain).
import { BROWSER_MAP, OS_MAP, getParser } from 'bowser';
import { isbot } from 'isbot';
import { LruCache } from '../../common/lru-cache.js';

export const DEVICES = ['desktop', 'mobile', 'tablet', 'other'] as const;
export type Device = (typeof DEVICES)[number];

/** What a click's `User-Agent` says about the visitor: labels only, never the header itself. */
export interface UserAgentClass {
  readonly bot: boolean;
  readonly device: Device;
  /** A browser name as bowser gives it (`Chrome`, `Safari`, `Microsoft Edge`…), or `Other`. */
  readonly browser: string;
  /** An operating system as bowser names it (`Windows`, `macOS`, `iOS`, `Android`…), or `Other`. */
  readonly os: string;
}

export const OTHER = 'Other';

/** Only this much of a header is parsed (and kept as a cache key): real ones are shorter. */
export const MAX_USER_AGENT_LENGTH = 512;
/** A few hundred user agents make most of the traffic. */
export const USER_AGENT_CACHE_SIZE = 1000;

/**
 * Clients isbot 5.2 does not know, found while checking it against the scripts the contract
 * names (every family it names is in isbot's list): Dart's HTTP client (`Dart/3.2 (dart:io)`,
 * what Flutter apps and Dart scripts send by default).
 */
const EXTRA_BOTS = /\bdart:io\b/i;

/**
 * The labels a click may carry. bowser's last-resort browser parser echoes the text before the
 * first `/` of an unknown user agent as the browser's name (`Foo123/1.0 (x)` → `Foo123`), so
 * cleaning names up would not bound them: every client could invent one. Only the names in
 * bowser's own tables pass, a vocabulary fixed by the installed bowser's code (about 80
 * browsers, 14 systems), and anything else counts as `Other`. So the number of distinct labels
 * a click can carry never depends on what clients send.
 */
export const BROWSER_LABELS: ReadonlySet<string> = new Set([
  ...Object.values(BROWSER_MAP),
  // Names bowser 2.15's parsers return that its BROWSER_MAP leaves out.
  'Miui',
  'Opera Touch',
  'PlayStation 4',
  'SlimerJS',
]);
export const OS_LABELS: ReadonlySet<string> = new Set(Object.values(OS_MAP));

/** Printable ASCII, at most 40 characters: a second fence should the vocabulary ever widen. */
const PRINTABLE_LABEL = /^[\x20-\x7e]{1,40}$/;

function label(name: string, vocabulary: ReadonlySet<string>): string {
  return vocabulary.has(name) && PRINTABLE_LABEL.test(name) ? name : OTHER;
}

function device(platformType: string): Device {
  switch (platformType) {
    case 'desktop':
    case 'mobile':
    case 'tablet':
      return platformType;
    default:
      // tv, bot (when isbot let it through), unknown.
      return 'other';
  }
}

const MISSING: UserAgentClass = Object.freeze({ bot: true, device: 'other', browser: OTHER, os: OTHER });

/**
 * Classifies user agents, remembering the last {@link USER_AGENT_CACHE_SIZE} (by their first
 * {@link MAX_USER_AGENT_LENGTH} characters): at most that many keys of that length are held,
 * whatever clients send.
 */
export class UserAgentClassifier {
  private readonly cache: LruCache<string, UserAgentClass>;

  constructor(capacity = USER_AGENT_CACHE_SIZE) {
    this.cache = new LruCache(capacity);
  }

  get cacheSize(): number {
    return this.cache.size;
  }

  /** A missing or blank `User-Agent` is a bot (the contract). Never throws. */
  classify(userAgent: string | undefined): UserAgentClass {
    if (typeof userAgent !== 'string') return MISSING;
    const key = userAgent.length > MAX_USER_AGENT_LENGTH ? userAgent.slice(0, MAX_USER_AGENT_LENGTH) : userAgent;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const result = key.trim() === '' ? MISSING : parse(key);
    this.cache.set(key, result);
    return result;
  }
}

function parse(userAgent: string): UserAgentClass {
  let platformType = '';
  let browser = '';
  let os = '';
  try {
    // Parsed lazily: the engine, which nothing here needs, is never looked at.
    const parser = getParser(userAgent, true);
    platformType = parser.getPlatformType(true);
    browser = parser.getBrowserName();
    os = parser.getOSName();
  } catch {
    // bowser throws for an empty string only, which never gets here: labels stay unknown.
  }
  return Object.freeze({
    bot: isbot(userAgent) || EXTRA_BOTS.test(userAgent) || platformType === 'bot',
    device: device(platformType),
    browser: label(browser, BROWSER_LABELS),
    os: label(os, OS_LABELS),
  });
}

const shared = new UserAgentClassifier();

/** {@link UserAgentClassifier.classify} with one process-wide cache. */
export function classifyUserAgent(userAgent: string | undefined): UserAgentClass {
  return shared.classify(userAgent);
}
