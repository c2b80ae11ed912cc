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

/**
 * IPv6 addresses that carry an IPv4 address a connection may end up at, in each of their
 * spellings (hex groups, dotted tails, leading zeros, upper case): a private IPv4 inside one is
 * refused as the IPv4 address itself would be. Teredo and the local-use NAT64 prefix are refused
 * whatever they carry.
 */
describe('isForbiddenAddress with an IPv4 address inside an IPv6 one', () => {
  it.each([
    // IPv4-mapped, ::ffff:0:0/96
    ['::ffff:127.0.0.1', 'mapped, dotted'],
    ['::ffff:7f00:1', 'mapped, hex'],
    ['::FFFF:7F00:0001', 'mapped, hex, upper case and leading zeros'],
    ['0:0:0:0:0:ffff:127.0.0.1', 'mapped, written out'],
    ['0000:0000:0000:0000:0000:ffff:0a00:0001', 'mapped, every zero written'],
    ['::ffff:a9fe:a9fe', 'mapped, the metadata address in hex'],
    ['::ffff:169.254.169.254', 'mapped, the metadata address dotted'],
    ['::ffff:0.0.0.0', 'mapped, unspecified'],
    // IPv4-translated (SIIT), ::ffff:0:0:0/96
    ['::ffff:0:127.0.0.1', 'translated, dotted'],
    ['::ffff:0:7f00:1', 'translated, hex'],
    ['::ffff:0:10.0.0.1', 'translated, private, dotted'],
    ['0:0:0:0:ffff:0:a9fe:a9fe', 'translated, the metadata address, written out'],
    ['::FFFF:0:C0A8:0101', 'translated, upper case'],
    // IPv4-compatible (deprecated), ::/96
    ['::127.0.0.1', 'compatible, dotted'],
    ['::a00:1', 'compatible, hex'],
    // NAT64 well-known prefix, 64:ff9b::/96
    ['64:ff9b::127.0.0.1', 'NAT64, dotted'],
    ['64:ff9b::7f00:1', 'NAT64, hex'],
    ['64:ff9b::10.0.0.1', 'NAT64, private'],
    ['64:ff9b::a9fe:a9fe', 'NAT64, the metadata address'],
    ['0064:FF9B:0000:0000:0000:0000:C0A8:0101', 'NAT64, written out, upper case'],
    ['64:ff9b:0:0:0:0:192.168.1.1', 'NAT64, written out, dotted'],
    // NAT64 local-use prefix, 64:ff9b:1::/48 (where the IPv4 sits depends on the network's prefix length)
    ['64:ff9b:1::a00:1', 'local-use NAT64 /96, hex'],
    ['64:ff9b:1::10.0.0.1', 'local-use NAT64 /96, dotted'],
    ['64:ff9b:1:a00:1::', 'local-use NAT64 /64'],
    ['64:ff9b:1:0:808:808::', 'local-use NAT64 carrying a public address'],
    ['64:ff9b::ffff:7f00:1', 'the NAT64 /32 around the /96, outside it'],
    // Teredo, 2001::/32: the client's IPv4 is stored inverted in the last 32 bits
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo, client 127.0.0.1'],
    ['2001::80ff:fffe', 'Teredo, client 127.0.0.1, short'],
    ['2001:0:5ef5:79fd::f5ff:fffe', 'Teredo, client 10.0.0.1'],
    ['2001:0000:4136:E378:8000:63BF:5601:5601', 'Teredo, client 169.254.169.254'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'Teredo, client 8.8.8.8 (refused too: a tunnel, never a receiver)'],
    // 6to4, 2002::/16: the IPv4 address in the second and third groups
    ['2002:7f00:1::', '6to4, 127.0.0.1'],
    ['2002:0a00:0001::1', '6to4, 10.0.0.1'],
    ['2002:a9fe:a9fe::1', '6to4, the metadata address'],
    ['2002:C0A8:0101:0:0:0:0:1', '6to4, 192.168.1.1, written out'],
  ])('refuses %s (%s)', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    ['::ffff:8.8.8.8', 'mapped'],
    ['::ffff:808:808', 'mapped, hex'],
    ['::ffff:0:8.8.8.8', 'translated'],
    ['64:ff9b::8.8.8.8', 'NAT64'],
    ['64:ff9b::5db8:d822', 'NAT64, hex'],
    ['2002:808:808::1', '6to4'],
    ['2001:db9::1', 'next to Teredo'],
    ['2001:4860:4860::8888', 'a public address in 2001::/16'],
  ])('allows %s (%s), which carries a public address', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });

  it.each([
    'http://[::ffff:0:7f00:1]/',
    'http://[::ffff:0:10.0.0.1]/',
    'http://[64:ff9b:1::a00:1]/',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
    'http://[64:ff9b::169.254.169.254]/',
    'http://[2002:a9fe:a9fe::]/',
    'http://[::ffff:169.254.169.254]/',
  ])('refuses the URL %s when the webhook is added', async (url) => {
    await expect(checkDestination(new URL(url), () => Promise.reject(new Error('no DNS')))).rejects.toMatchObject({
      errorName: 'invalid_url',
    });
  });

  it('refuses a name that resolves to such an address', async () => {
    const resolver = () => Promise.resolve(['93.184.216.34', '::ffff:0:a00:1']);
    await expect(checkDestination(new URL('https://rebind.example/'), resolver)).rejects.toMatchObject({
      errorName: 'invalid_url',
    });
  });
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
