import { ApiError } from '../common/errors/api-error.js';
import { checkDestination, guardedLookup, isForbiddenAddress, normalizeWebhookUrl } from './destination.js';

describe('isForbiddenAddress', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::127.0.0.1',
    '64:ff9b::a00:1',
    '2002:c0a8:0101::1',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '2002:0808:0808::1'])(
    'allows %s',
    (address) => {
      expect(isForbiddenAddress(address)).toBe(false);
    },
  );
});

describe('normalizeWebhookUrl', () => {
  const base = 'https://sl.example';

  it('keeps an http(s) URL in its normalised form', () => {
    expect(normalizeWebhookUrl('  https://Hooks.Example.com/in?x=1 ', base).href).toBe(
      'https://hooks.example.com/in?x=1',
    );
  });

  it("accepts the service's host on another port, and another host on its port", () => {
    expect(normalizeWebhookUrl('https://sl.example:8443/in', base).port).toBe('8443');
    expect(normalizeWebhookUrl('https://hooks.sl.example/in', base).hostname).toBe('hooks.sl.example');
  });

  it.each([
    ['ftp://hooks.example.com/', 'url must be an http or https URL'],
    ['https://user:pw@hooks.example.com/', 'url must not contain a user name or password'],
    ['https://user@hooks.example.com/', 'url must not contain a user name or password'],
    ['hooks.example.com/in', 'url must be an absolute http or https URL'],
    ['https://hooks.example.com/a b', 'url must not contain whitespace or control characters'],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, 'url must be at most 2048 characters long'],
    [42, 'url must be an absolute http or https URL'],
  ])('refuses %s as invalid_url', (input, message) => {
    let thrown: unknown;
    try {
      normalizeWebhookUrl(input, base);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).errorName).toBe('invalid_url');
    expect((thrown as ApiError).detail).toBe(message);
  });
  it.each(['https://sl.example/in', 'http://SL.example./in', 'https://sl.example:443/', 'http://sl.example:80/'])(
    'refuses %s, which reaches the service itself, as invalid_url on url',
    (input) => {
      expect(() => normalizeWebhookUrl(input, base)).toThrow(
        expect.objectContaining({
          errorName: 'invalid_url',
          detail: expect.stringMatching(/^url points back at this short-link service/),
        }),
      );
    },
  );
});

describe('checkDestination', () => {
  const resolver = (table: Record<string, string[]>) => (host: string) =>
    table[host] ? Promise.resolve(table[host]) : Promise.reject(new Error('ENOTFOUND'));

  it('allows a name whose every address is public', async () => {
    await expect(
      checkDestination(
        new URL('https://hooks.example/'),
        resolver({ 'hooks.example': ['93.184.216.34', '2606:4700::1'] }),
      ),
    ).resolves.toBeUndefined();
  });

  it.each([
    ['https://127.0.0.1/', {}],
    ['https://[::1]/', {}],
    ['https://[::ffff:127.0.0.1]/', {}],
    ['http://10.0.0.1/', {}],
    ['http://internal.example/', { 'internal.example': ['93.184.216.34', '10.1.2.3'] }],
    ['http://nowhere.example/', {}],
  ])('refuses %s', async (url, table) => {
    await expect(checkDestination(new URL(url), resolver(table))).rejects.toMatchObject({ errorName: 'invalid_url' });
  });
});

describe('guardedLookup', () => {
  it('refuses a name that resolves to a loopback address, when connecting', async () => {
    const error = await new Promise<Error | null>((resolve) => guardedLookup('localhost', {}, (e) => resolve(e)));
    expect(error?.name).toBe('ForbiddenAddressError');
  });
});
