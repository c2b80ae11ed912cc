import { resolve } from 'node:path';
import { ConfigError, databaseKindOf, loadConfig } from './app-config.js';

describe('loadConfig', () => {
  it('applies the documented defaults when nothing is set', () => {
    const sut = loadConfig({});

    expect(sut).toEqual({
      port: 3000,
      host: '0.0.0.0',
      database: { kind: 'sqlite', url: 'file:./data/shortlink.db', file: resolve('data/shortlink.db') },
      databaseKind: 'sqlite',
      shortBaseUrl: 'http://localhost:3000',
      redisUrl: undefined,
      rateLimit: { windowSeconds: 60, anonymous: 60, token: 600 },
      trustProxy: false,
      logLevel: 'info',
      migrateOnStart: true,
      redirectCacheSize: 100_000,
      redirectCacheTtlSeconds: 300,
      clickFlushIntervalMs: 1000,
      shutdownDelayMs: 0,
      corsOrigins: [],
      signup: 'open',
      sessionTtlDays: 30,
      webhooks: {
        retryScheduleSeconds: [5, 300, 1800, 7200, 18000, 36000, 36000],
        allowPrivate: false,
        clickIntervalSeconds: 60,
        timeoutMs: 10_000,
        delivery: 'inline',
      },
    });
  });

  it('derives SHORT_BASE_URL from PORT when it is not set', () => {
    expect(loadConfig({ PORT: '8080' }).shortBaseUrl).toBe('http://localhost:8080');
  });

  it('reads every variable', () => {
    const sut = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgresql://user@db:5432/shortlink',
      SHORT_BASE_URL: 'https://sho.rt',
      REDIS_URL: 'redis://cache:6379',
      RATE_LIMIT_WINDOW_SECONDS: '30',
      RATE_LIMIT_ANONYMOUS: '5',
      RATE_LIMIT_TOKEN: '50',
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'debug',
      MIGRATE_ON_START: 'false',
      REDIRECT_CACHE_SIZE: '0',
      REDIRECT_CACHE_TTL_SECONDS: '0',
      CLICK_FLUSH_INTERVAL_MS: '250',
      SHUTDOWN_DELAY_MS: '5000',
      CORS_ORIGINS: 'https://app.example, http://localhost:5173',
      SIGNUP: 'closed',
      SESSION_TTL_DAYS: '7',
      METRICS_PORT: '9464',
      WEBHOOK_RETRY_SCHEDULE: '1, 1,30',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_CLICK_INTERVAL_SECONDS: '10',
      WEBHOOK_TIMEOUT_MS: '500',
      WEBHOOK_DELIVERY: 'off',
    });

    expect(sut).toEqual({
      port: 8080,
      host: '127.0.0.1',
      database: {
        kind: 'postgresql',
        url: 'postgresql://user@db:5432/shortlink',
        schema: 'public',
        connection: {
          host: 'db',
          port: 5432,
          user: 'user',
          password: undefined,
          database: 'shortlink',
          ssl: undefined,
          connectionTimeoutMillis: 5000,
          options: '-c search_path="public"',
        },
      },
      databaseKind: 'postgresql',
      shortBaseUrl: 'https://sho.rt',
      redisUrl: 'redis://cache:6379',
      rateLimit: { windowSeconds: 30, anonymous: 5, token: 50 },
      trustProxy: true,
      logLevel: 'debug',
      migrateOnStart: false,
      redirectCacheSize: 0,
      redirectCacheTtlSeconds: 0,
      clickFlushIntervalMs: 250,
      shutdownDelayMs: 5000,
      corsOrigins: ['https://app.example', 'http://localhost:5173'],
      signup: 'closed',
      sessionTtlDays: 7,
      metricsPort: 9464,
      webhooks: {
        retryScheduleSeconds: [1, 1, 30],
        allowPrivate: true,
        clickIntervalSeconds: 10,
        timeoutMs: 500,
        delivery: 'off',
      },
    });
  });

  it('accepts postgres:// as well as postgresql://, and a path below the short base URL', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x' }).databaseKind).toBe('postgresql');
    expect(loadConfig({ SHORT_BASE_URL: 'https://example.com/s' }).shortBaseUrl).toBe('https://example.com/s');
  });

  it('reads single sign-on as one setting, refusing an incomplete or plain-http one', () => {
    const oidc = { OIDC_ISSUER: 'https://id.example.com', OIDC_CLIENT_ID: 'shortlink', OIDC_CLIENT_SECRET: 's3cret' };

    expect(loadConfig(oidc).oidc).toEqual({
      issuer: 'https://id.example.com',
      clientId: 'shortlink',
      clientSecret: 's3cret',
      name: 'single sign-on',
    });
    expect(loadConfig({ ...oidc, OIDC_NAME: 'Okta' }).oidc?.name).toBe('Okta');
    expect(loadConfig({ ...oidc, OIDC_ISSUER: 'http://127.0.0.1:9000' }).oidc?.issuer).toBe('http://127.0.0.1:9000');
    expect(loadConfig({}).oidc).toBeUndefined();
    for (const env of [
      { ...oidc, OIDC_ISSUER: 'http://id.example.com' },
      { ...oidc, OIDC_ISSUER: 'id.example.com' },
      { ...oidc, OIDC_CLIENT_ID: '' },
      { ...oidc, OIDC_CLIENT_SECRET: undefined },
      { OIDC_CLIENT_ID: 'shortlink' },
      { ...oidc, OIDC_NAME: '<script>' },
    ]) {
      expect(() => loadConfig(env)).toThrow(/^Invalid configuration: OIDC_/);
    }
  });

  it('reads email as one setting, with a From of the short domain by default', () => {
    expect(loadConfig({}).mail).toBeUndefined();
    expect(
      loadConfig({ SHORT_BASE_URL: 'https://sho.rt', SMTP_URL: 'smtp://mailer:s3cret@mail.example.com:587' }).mail,
    ).toEqual({
      smtpUrl: 'smtp://mailer:s3cret@mail.example.com:587',
      from: 'shortlink <no-reply@sho.rt>',
      retryScheduleSeconds: [10, 60, 300, 1800, 7200, 21600],
    });
    const mail = loadConfig({
      SMTP_URL: 'smtps://mail.example.com',
      MAIL_FROM: 'Links <links@example.com>',
      MAIL_RETRY_SCHEDULE: '5, 60',
    }).mail;
    expect(mail).toMatchObject({ from: 'Links <links@example.com>', retryScheduleSeconds: [5, 60] });
    expect(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'links@example.com' }).mail?.from).toBe(
      'links@example.com',
    );
    for (const env of [
      { SMTP_URL: 'http://mail.example.com' },
      { SMTP_URL: 'mail.example.com:25' },
      { SMTP_URL: 'smtp://mail.example.com/?pool=true' },
      { SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'not an address' },
      { SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'a@b.c\r\nBcc: x@y.z' },
      { SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_RETRY_SCHEDULE: 'soon' },
      { MAIL_FROM: 'links@example.com' },
      { MAIL_RETRY_SCHEDULE: '5' },
    ]) {
      expect(() => loadConfig(env)).toThrow(/^Invalid configuration: (SMTP_URL|MAIL_FROM|MAIL_RETRY_SCHEDULE)/);
    }
  });

  it('takes SIGNUP=verify only with SMTP_URL (the link goes out by email)', () => {
    expect(loadConfig({ SIGNUP: 'verify', SMTP_URL: 'smtp://127.0.0.1:2525' }).signup).toBe('verify');
    expect(() => loadConfig({ SIGNUP: 'verify' })).toThrow(
      'Invalid configuration: SIGNUP="verify" needs SMTP_URL (the link that proves the email is sent by email)',
    );
    expect(() => loadConfig({ SIGNUP: 'sometimes' })).toThrow(
      /^Invalid configuration: SIGNUP="sometimes" must be open, verify/,
    );
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', LOG_LEVEL: '  ' })).toMatchObject({ port: 3000, logLevel: 'info' });
  });

  it('ignores variables it does not know', () => {
    expect(() => loadConfig({ SOMETHING_ELSE: 'x' })).not.toThrow();
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['PORT', '12abc'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'shortlink.db'],
    ['DATABASE_URL', 'file:./100%.db'],
    ['SHORT_BASE_URL', 'https://sho.rt/'],
    ['SHORT_BASE_URL', 'sho.rt'],
    ['SHORT_BASE_URL', 'ftp://sho.rt'],
    ['SHORT_BASE_URL', 'https://sho.rt/?x=1'],
    ['REDIS_URL', 'localhost:6379'],
    ['RATE_LIMIT_WINDOW_SECONDS', '0'],
    ['RATE_LIMIT_WINDOW_SECONDS', 'abc'],
    ['RATE_LIMIT_ANONYMOUS', '0'],
    ['RATE_LIMIT_ANONYMOUS', 'abc'],
    ['RATE_LIMIT_TOKEN', '0'],
    ['RATE_LIMIT_TOKEN', 'abc'],
    ['TRUST_PROXY', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['MIGRATE_ON_START', 'sometimes'],
    ['REDIRECT_CACHE_SIZE', '-5'],
    ['REDIRECT_CACHE_TTL_SECONDS', '-1'],
    ['REDIRECT_CACHE_TTL_SECONDS', '86401'],
    ['REDIRECT_CACHE_TTL_SECONDS', '1.5'],
    ['CLICK_FLUSH_INTERVAL_MS', '5'],
    ['SHUTDOWN_DELAY_MS', '-1'],
    ['SHUTDOWN_DELAY_MS', '300001'],
    ['CORS_ORIGINS', 'app.example'],
    ['CORS_ORIGINS', 'https://app.example/'],
    ['CORS_ORIGINS', 'https://app.example/path'],
    ['CORS_ORIGINS', 'https://a.example,,https://b.example'],
    ['CORS_ORIGINS', 'ftp://files.example'],
    ['CORS_ORIGINS', '*,https://a.example'],
    ['METRICS_PORT', 'abc'],
    ['METRICS_PORT', '70000'],
    ['METRICS_PORT', '3000'],
    ['WEBHOOK_RETRY_SCHEDULE', '5,,300'],
    ['WEBHOOK_RETRY_SCHEDULE', '5;300'],
    ['WEBHOOK_RETRY_SCHEDULE', '0'],
    ['WEBHOOK_RETRY_SCHEDULE', '1.5'],
    ['WEBHOOK_RETRY_SCHEDULE', '604801'],
    ['WEBHOOK_RETRY_SCHEDULE', Array.from({ length: 21 }, () => '1').join(',')],
    ['WEBHOOK_ALLOW_PRIVATE', 'perhaps'],
    ['WEBHOOK_CLICK_INTERVAL_SECONDS', '0'],
    ['WEBHOOK_CLICK_INTERVAL_SECONDS', '86401'],
    ['WEBHOOK_TIMEOUT_MS', '99'],
    ['WEBHOOK_TIMEOUT_MS', '10001'],
    ['WEBHOOK_DELIVERY', 'worker'],
    ['WEBHOOK_DELIVERY', 'OFF'],
  ])('refuses %s=%s with one line naming the variable', (variable, value) => {
    let thrown: unknown;
    try {
      loadConfig({ [variable]: value });
    } catch (error) {
      thrown = error;
    }

    expect(thrown).toBeInstanceOf(ConfigError);
    const message = (thrown as ConfigError).message;
    expect(message).toContain(`${variable}=`);
    expect(message).toContain(JSON.stringify(value));
    expect(message).not.toContain('\n');
  });

  it.each([
    ['PORT', 'abc', 'Invalid configuration: PORT="abc" must be an integer number'],
    ['PORT', '70000', 'Invalid configuration: PORT="70000" must not be greater than 65535'],
    ['RATE_LIMIT_TOKEN', '0', 'Invalid configuration: RATE_LIMIT_TOKEN="0" must not be less than 1'],
    ['TRUST_PROXY', 'maybe', 'Invalid configuration: TRUST_PROXY="maybe" must be a boolean value'],
    [
      'WEBHOOK_RETRY_SCHEDULE',
      '5,five',
      'Invalid configuration: WEBHOOK_RETRY_SCHEDULE="5,five" must be a comma-separated list of up to 20 delays in seconds (1 to 604800 each), e.g. 5,300,1800',
    ],
    [
      'WEBHOOK_DELIVERY',
      'external',
      'Invalid configuration: WEBHOOK_DELIVERY="external" must be inline (this instance delivers the webhook messages it stores) or off (it only stores them; run `shortlink webhooks worker` to deliver them)',
    ],
  ])('explains why %s=%s is refused', (variable, value, message) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(new ConfigError(message));
  });
});

describe('CORS_ORIGINS', () => {
  it('takes * for any origin', () => {
    expect(loadConfig({ CORS_ORIGINS: ' * ' }).corsOrigins).toBe('*');
  });

  it('explains what it expects', () => {
    expect(() => loadConfig({ CORS_ORIGINS: 'https://app.example/' })).toThrow(
      new ConfigError(
        'Invalid configuration: CORS_ORIGINS="https://app.example/" must be * or a comma-separated list of origins such as https://app.example or http://localhost:5173 (scheme, host and port only, no path or trailing slash)',
      ),
    );
  });
});

describe('DATABASE_URL with a malformed %-escape', () => {
  it('stops at start-up with one line that says how to write a literal %', () => {
    expect(() => loadConfig({ DATABASE_URL: 'file:./100%.db' })).toThrow(
      'Invalid configuration: DATABASE_URL="file:./100%.db" has a malformed %-escape in its file path (write a literal % as %25)',
    );
    expect(loadConfig({ DATABASE_URL: 'file:./100%25.db' }).database).toMatchObject({ file: resolve('100%.db') });
  });
});

describe('DATABASE_URL options', () => {
  it('reads ?schema= into the connection settings once, for every pool', () => {
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@db/shortlink?schema=tenant_a' }).database).toMatchObject({
      kind: 'postgresql',
      schema: 'tenant_a',
      connection: { options: '-c search_path="tenant_a"' },
    });
  });

  it('refuses an option neither side would honour the same way, naming it, without the password', () => {
    const url = 'postgresql://u:s3cret@db/shortlink?connection_limit=5';
    expect(() => loadConfig({ DATABASE_URL: url })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: url })).toThrow(
      'Invalid configuration: DATABASE_URL="postgresql://u:***@db/shortlink?connection_limit=5" has the option ?connection_limit=, which is not supported; the options honoured are schema, host, sslmode, sslrootcert, sslcert, sslkey, application_name, connect_timeout',
    );
  });
});

describe('databaseKindOf', () => {
  it('maps the URL scheme to the database kind', () => {
    expect(databaseKindOf('file:./x.db')).toBe('sqlite');
    expect(databaseKindOf('postgresql://h/db')).toBe('postgresql');
  });

  it('refuses other schemes with a ConfigError naming DATABASE_URL', () => {
    expect(() => databaseKindOf('mysql://h/db')).toThrow(ConfigError);
    expect(() => databaseKindOf('mysql://h/db')).toThrow(/DATABASE_URL/);
  });
});
