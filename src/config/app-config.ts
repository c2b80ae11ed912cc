import 'reflect-metadata';
import { plainToInstance, Transform } from 'class-transformer';
import { DatabaseUrlError, readDatabaseUrl, type DatabaseTarget } from '../../prisma/engine/database-url.js';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateBy,
  validateSync,
} from 'class-validator';

export type DatabaseKind = 'sqlite' | 'postgresql';
export type { DatabaseTarget };

/** The typed, validated configuration every part of the service reads (never `process.env`). */
export interface AppConfig {
  port: number;
  host: string;
  /**
   * DATABASE_URL, read once by the reader the migrator uses too (prisma/engine/database-url.js):
   * the SQLite file, or the PostgreSQL connection settings and schema. Everything that opens the
   * database takes it from here and never parses the URL again.
   */
  database: DatabaseTarget;
  /** `database.kind`, for the many places that only choose by it. */
  databaseKind: DatabaseKind;
  /** `{short_base_url}`, without a trailing slash. */
  shortBaseUrl: string;
  redisUrl?: string;
  rateLimit: { windowSeconds: number; anonymous: number; token: number };
  trustProxy: boolean;
  logLevel: string;
  migrateOnStart: boolean;
  /** Entries kept in each instance's code → target cache for redirects. */
  redirectCacheSize: number;
  /** How long a cached target may be served before it is read again; 0: until evicted. */
  redirectCacheTtlSeconds: number;
  /** How often buffered click counts are written to the database. */
  clickFlushIntervalMs: number;
  /** How long a stopping instance keeps serving, with readiness failing, before it closes. */
  shutdownDelayMs: number;
  /** Origins whose pages may call the API from a browser (CORS): a list, `*` for any, none by default. */
  corsOrigins: string[] | '*';
  /**
   * Who may create an account on the sign-up page (SIGNUP): `open`, anyone; `verify`, anyone,
   * who creates nothing until the email's link is opened (needs SMTP_URL); `closed`, nobody.
   */
  signup: SignupMode;
  /** A dashboard session ends after this many days without a request. */
  sessionTtlDays: number;
  /** Port of the Prometheus endpoint (`GET /metrics`, on HOST); unset: no metrics served. */
  metricsPort?: number;
  /** Single sign-on through an OpenID Connect provider; unset: no such button. */
  oidc?: { issuer: string; clientId: string; clientSecret: string; name: string };
  webhooks: WebhookSettings;
  /** Email over SMTP (SMTP_URL); unset: the service sends none (src/mail). */
  mail?: MailSettings;
}

export const SIGNUP_MODES = ['open', 'verify', 'closed'] as const;
export type SignupMode = (typeof SIGNUP_MODES)[number];

/** How email goes out (src/mail). */
export interface MailSettings {
  /** SMTP_URL: `smtp://user:pass@host:port` (STARTTLS when offered) or `smtps://…` (TLS from the start). */
  smtpUrl: string;
  /** MAIL_FROM: the From header, `shortlink <no-reply@{host of SHORT_BASE_URL}>` by default. */
  from: string;
  /** Seconds before each retry of a message the server did not take; then it is given up (MAIL_RETRY_SCHEDULE). */
  retryScheduleSeconds: number[];
}

/** About 10 s, 1 min, 5 min, 30 min, 2 h and 6 h: seven attempts over about 8.5 hours. */
export const DEFAULT_MAIL_RETRY_SCHEDULE = [10, 60, 300, 1800, 7200, 21600];

/** How webhook messages are delivered (src/webhooks). */
export interface WebhookSettings {
  /**
   * Seconds to wait before each retry of a message that was not delivered: the first attempt,
   * then one retry per entry, then the message is failed (WEBHOOK_RETRY_SCHEDULE).
   */
  retryScheduleSeconds: number[];
  /** Whether receivers on loopback, private, link-local or unique-local addresses are allowed. */
  allowPrivate: boolean;
  /** At most one `link.clicked` message per link per this many seconds. */
  clickIntervalSeconds: number;
  /** How long one attempt may take, connection to last byte read (at most 10 s). */
  timeoutMs: number;
  /**
   * Who delivers the stored messages (WEBHOOK_DELIVERY): `inline`, this instance as well (the
   * one-command start); `off`, it only stores them, and `shortlink webhooks worker` processes on
   * the same database deliver them.
   */
  delivery: WebhookDelivery;
}

export const WEBHOOK_DELIVERY_MODES = ['inline', 'off'] as const;
export type WebhookDelivery = (typeof WEBHOOK_DELIVERY_MODES)[number];

/** About 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h: eight attempts over about 28 hours. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];
/** The longest wait WEBHOOK_RETRY_SCHEDULE may name, and how many retries it may list. */
const MAX_RETRY_DELAY_SECONDS = 7 * 86400;
const MAX_RETRIES = 20;

/** Thrown for a bad environment variable; its message is the one line printed at start-up. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const toBoolean = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const normalized = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(normalized)) return true;
  if (['false', '0', 'no', 'off', ''].includes(normalized)) return false;
  return value;
};

// Strict integer parsing: "12abc" or "1.5" must be refused, not silently truncated.
const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;

// "https://a.example, http://localhost:5173" → a list; "*" stays "*". An entry that is not an
// origin is kept as given, so the check below can name it.
const toCorsOrigins = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  if (value.trim() === '*') return '*';
  return value.split(',').map((entry) => entry.trim());
};

/** True for exactly `scheme://host[:port]` (http or https), as a browser sends it in `Origin`. */
function isOrigin(entry: string): boolean {
  try {
    const url = new URL(entry);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === entry;
  } catch {
    return false;
  }
}

function IsCorsOrigins() {
  return ValidateBy({
    name: 'isCorsOrigins',
    validator: {
      validate: (value: unknown) =>
        value === '*' || (Array.isArray(value) && value.every((entry) => isOrigin(String(entry)))),
      defaultMessage: () =>
        'must be * or a comma-separated list of origins such as https://app.example or http://localhost:5173 (scheme, host and port only, no path or trailing slash)',
    },
  });
}

// "5, 300,1800" → [5, 300, 1800]; anything else stays as given, for the check to name it.
const toSecondsList = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const entries = value.split(',').map((entry) => entry.trim());
  return entries.every((entry) => /^\d+$/.test(entry)) ? entries.map(Number) : value;
};

function IsRetrySchedule() {
  return ValidateBy({
    name: 'isRetrySchedule',
    validator: {
      validate: (value: unknown) =>
        Array.isArray(value) &&
        value.length <= MAX_RETRIES &&
        value.every((entry) => Number.isInteger(entry) && entry >= 1 && entry <= MAX_RETRY_DELAY_SECONDS),
      defaultMessage: () =>
        `must be a comma-separated list of up to ${MAX_RETRIES} delays in seconds (1 to ${MAX_RETRY_DELAY_SECONDS} each), e.g. 5,300,1800`,
    },
  });
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** The environment as it may be given; every variable is optional. */
class EnvironmentVariables {
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT?: number;

  @IsOptional()
  @IsString()
  HOST?: string;

  // Read (and checked) by readDatabase in loadConfig.
  @IsOptional()
  @IsString()
  DATABASE_URL?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^/\s?#]+(\/[^\s?#]*[^/\s?#])?$/, {
    message: 'must be an absolute http(s) URL without a trailing slash, query or fragment',
  })
  SHORT_BASE_URL?: string;

  @IsOptional()
  @Matches(/^rediss?:\/\//, { message: 'must start with redis:// or rediss://' })
  REDIS_URL?: string;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(86400)
  RATE_LIMIT_WINDOW_SECONDS?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  RATE_LIMIT_ANONYMOUS?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  RATE_LIMIT_TOKEN?: number;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  TRUST_PROXY?: boolean;

  @IsOptional()
  @IsIn(LOG_LEVELS)
  LOG_LEVEL?: string;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  MIGRATE_ON_START?: boolean;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  REDIRECT_CACHE_SIZE?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(86400)
  REDIRECT_CACHE_TTL_SECONDS?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(10)
  @Max(60000)
  CLICK_FLUSH_INTERVAL_MS?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(300000)
  SHUTDOWN_DELAY_MS?: number;

  @IsOptional()
  @Transform(toCorsOrigins)
  @IsCorsOrigins()
  CORS_ORIGINS?: string[] | '*';

  @IsOptional()
  @IsIn(SIGNUP_MODES, {
    message: 'must be open, verify (accounts create nothing until their email is proved; needs SMTP_URL) or closed',
  })
  SIGNUP?: SignupMode;

  @IsOptional()
  @Matches(/^smtps?:\/\/[^\s/?#]+(:\d+)?\/?$/, {
    message: 'must be smtp://[user:password@]host[:port] or smtps://… (TLS from the start)',
  })
  SMTP_URL?: string;

  @IsOptional()
  @Matches(/^[^\r\n]{3,200}$/, { message: 'must be one line of 3 to 200 characters' })
  @Matches(/^(?:[^<>@]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/, {
    message: 'must be an address (no-reply@example.com) or a name and an address (shortlink <no-reply@example.com>)',
  })
  MAIL_FROM?: string;

  @IsOptional()
  @Transform(toSecondsList)
  @IsRetrySchedule()
  MAIL_RETRY_SCHEDULE?: number[];

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(3650)
  SESSION_TTL_DAYS?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT?: number;

  @IsOptional()
  @Matches(/^https?:\/\/[^\s?#]+$/, {
    message: 'must be the issuer URL of an OpenID Connect provider, e.g. https://accounts.google.com',
  })
  OIDC_ISSUER?: string;

  @IsOptional()
  @IsString()
  OIDC_CLIENT_ID?: string;

  @IsOptional()
  @IsString()
  OIDC_CLIENT_SECRET?: string;

  @IsOptional()
  @Transform(toSecondsList)
  @IsRetrySchedule()
  WEBHOOK_RETRY_SCHEDULE?: number[];

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE?: boolean;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(86400)
  WEBHOOK_CLICK_INTERVAL_SECONDS?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(10000)
  WEBHOOK_TIMEOUT_MS?: number;

  @IsOptional()
  @IsIn(WEBHOOK_DELIVERY_MODES, {
    message:
      'must be inline (this instance delivers the webhook messages it stores) or off (it only stores them; run `shortlink webhooks worker` to deliver them)',
  })
  WEBHOOK_DELIVERY?: WebhookDelivery;

  @IsOptional()
  @IsString()
  @Matches(/^[^<>\r\n]{1,40}$/, { message: 'must be 1 to 40 characters (the button says "Sign in with <name>")' })
  OIDC_NAME?: string;
}

/** The variables read; anything else in the environment is ignored. */
const VARIABLES = [
  'PORT',
  'HOST',
  'DATABASE_URL',
  'SHORT_BASE_URL',
  'REDIS_URL',
  'RATE_LIMIT_WINDOW_SECONDS',
  'RATE_LIMIT_ANONYMOUS',
  'RATE_LIMIT_TOKEN',
  'TRUST_PROXY',
  'LOG_LEVEL',
  'MIGRATE_ON_START',
  'REDIRECT_CACHE_SIZE',
  'REDIRECT_CACHE_TTL_SECONDS',
  'CLICK_FLUSH_INTERVAL_MS',
  'SHUTDOWN_DELAY_MS',
  'CORS_ORIGINS',
  'SIGNUP',
  'SMTP_URL',
  'MAIL_FROM',
  'MAIL_RETRY_SCHEDULE',
  'SESSION_TTL_DAYS',
  'METRICS_PORT',
  'OIDC_ISSUER',
  'OIDC_CLIENT_ID',
  'OIDC_CLIENT_SECRET',
  'OIDC_NAME',
  'WEBHOOK_RETRY_SCHEDULE',
  'WEBHOOK_ALLOW_PRIVATE',
  'WEBHOOK_CLICK_INTERVAL_SECONDS',
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_DELIVERY',
] as const satisfies readonly (keyof EnvironmentVariables)[];

/**
 * DATABASE_URL read by the one reader the migrator uses too (prisma/engine/database-url.js). A
 * URL it refuses is a ConfigError naming the variable, shown without its password.
 */
export function readDatabase(url: string): DatabaseTarget {
  try {
    return readDatabaseUrl(url);
  } catch (error) {
    if (!(error instanceof DatabaseUrlError)) throw error;
    throw new ConfigError(
      `Invalid configuration: DATABASE_URL=${JSON.stringify(withoutPassword(url))} ${error.reason}`,
    );
  }
}

/** The database kind of a URL, by the one rule the migrator uses too. */
export function databaseKindOf(url: string): DatabaseKind {
  return readDatabase(url).kind;
}

/** `postgresql://user:secret@host/db` → `postgresql://user:***@host/db`, for error messages. */
function withoutPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*:)[^/?#]*@/i, '$1***@');
}

/** Loopback hosts: the only ones an issuer may be reached at over plain http (a local test provider). */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** OIDC_* as one setting: an issuer needs its client id and secret, and https unless on loopback. */
function oidcConfig(parsed: EnvironmentVariables): AppConfig['oidc'] {
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } = parsed;
  if (issuer === undefined) {
    const stray =
      clientId !== undefined ? 'OIDC_CLIENT_ID' : clientSecret !== undefined ? 'OIDC_CLIENT_SECRET' : undefined;
    if (stray) throw new ConfigError(`Invalid configuration: ${stray} is set without OIDC_ISSUER`);
    return undefined;
  }
  const url = new URL(issuer);
  if (url.protocol !== 'https:' && !LOOPBACK.has(url.hostname)) {
    throw new ConfigError(
      `Invalid configuration: OIDC_ISSUER="${issuer}" must be https (plain http only on localhost)`,
    );
  }
  if (clientId === undefined)
    throw new ConfigError('Invalid configuration: OIDC_CLIENT_ID is required with OIDC_ISSUER');
  if (clientSecret === undefined) {
    throw new ConfigError('Invalid configuration: OIDC_CLIENT_SECRET is required with OIDC_ISSUER');
  }
  return { issuer, clientId, clientSecret, name: parsed.OIDC_NAME ?? 'single sign-on' };
}

/**
 * Reads and validates the environment. Empty strings count as unset, so `PORT= npm start`
 * behaves like no PORT at all.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const given = Object.fromEntries(
    VARIABLES.flatMap((key) => {
      const value = env[key];
      return value === undefined || value.trim() === '' ? [] : [[key, value]];
    }),
  );
  const parsed = plainToInstance(EnvironmentVariables, given);
  const [error] = validateSync(parsed, { forbidUnknownValues: false });
  if (error) {
    const constraints = error.constraints ?? {};
    // "abc" also fails @Min/@Max; "must be an integer" is the reason worth showing.
    const reason = constraints.isInt ?? Object.values(constraints)[0] ?? 'is invalid';
    const shown = JSON.stringify(String(given[error.property]));
    throw new ConfigError(
      `Invalid configuration: ${error.property}=${shown} ${reason.replace(`${error.property} `, '')}`,
    );
  }

  const port = parsed.PORT ?? 3000;
  const oidc = oidcConfig(parsed);
  // Metrics must never be served on the public port by accident (0 picks a free port, as PORT does).
  if (parsed.METRICS_PORT !== undefined && parsed.METRICS_PORT !== 0 && parsed.METRICS_PORT === port) {
    throw new ConfigError(
      `Invalid configuration: METRICS_PORT="${parsed.METRICS_PORT}" must differ from PORT (metrics are never served on the public port)`,
    );
  }
  const database = readDatabase(parsed.DATABASE_URL ?? 'file:./data/shortlink.db');
  const shortBaseUrl = parsed.SHORT_BASE_URL ?? `http://localhost:${port}`;
  const mail = mailConfig(parsed, shortBaseUrl);
  const signup = parsed.SIGNUP ?? 'open';
  if (signup === 'verify' && !mail) {
    throw new ConfigError(
      'Invalid configuration: SIGNUP="verify" needs SMTP_URL (the link that proves the email is sent by email)',
    );
  }
  return {
    port,
    host: parsed.HOST ?? '0.0.0.0',
    database,
    databaseKind: database.kind,
    shortBaseUrl,
    redisUrl: parsed.REDIS_URL,
    rateLimit: {
      windowSeconds: parsed.RATE_LIMIT_WINDOW_SECONDS ?? 60,
      anonymous: parsed.RATE_LIMIT_ANONYMOUS ?? 60,
      token: parsed.RATE_LIMIT_TOKEN ?? 600,
    },
    trustProxy: parsed.TRUST_PROXY ?? false,
    logLevel: parsed.LOG_LEVEL ?? 'info',
    migrateOnStart: parsed.MIGRATE_ON_START ?? true,
    redirectCacheSize: parsed.REDIRECT_CACHE_SIZE ?? 100_000,
    redirectCacheTtlSeconds: parsed.REDIRECT_CACHE_TTL_SECONDS ?? 300,
    clickFlushIntervalMs: parsed.CLICK_FLUSH_INTERVAL_MS ?? 1000,
    shutdownDelayMs: parsed.SHUTDOWN_DELAY_MS ?? 0,
    corsOrigins: parsed.CORS_ORIGINS ?? [],
    signup,
    sessionTtlDays: parsed.SESSION_TTL_DAYS ?? 30,
    metricsPort: parsed.METRICS_PORT,
    oidc,
    webhooks: {
      retryScheduleSeconds: parsed.WEBHOOK_RETRY_SCHEDULE ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE,
      allowPrivate: parsed.WEBHOOK_ALLOW_PRIVATE ?? false,
      clickIntervalSeconds: parsed.WEBHOOK_CLICK_INTERVAL_SECONDS ?? 60,
      timeoutMs: parsed.WEBHOOK_TIMEOUT_MS ?? 10_000,
      delivery: parsed.WEBHOOK_DELIVERY ?? 'inline',
    },
    ...(mail && { mail }),
  };
}

/** SMTP_URL and the rest as one setting: MAIL_FROM or MAIL_RETRY_SCHEDULE without it is a mistake. */
function mailConfig(parsed: EnvironmentVariables, shortBaseUrl: string): MailSettings | undefined {
  if (parsed.SMTP_URL === undefined) {
    const stray =
      parsed.MAIL_FROM !== undefined
        ? 'MAIL_FROM'
        : parsed.MAIL_RETRY_SCHEDULE !== undefined
          ? 'MAIL_RETRY_SCHEDULE'
          : undefined;
    if (stray) throw new ConfigError(`Invalid configuration: ${stray} is set without SMTP_URL`);
    return undefined;
  }
  return {
    smtpUrl: parsed.SMTP_URL,
    from: parsed.MAIL_FROM ?? `shortlink <no-reply@${new URL(shortBaseUrl).hostname}>`,
    retryScheduleSeconds: parsed.MAIL_RETRY_SCHEDULE ?? DEFAULT_MAIL_RETRY_SCHEDULE,
  };
}
