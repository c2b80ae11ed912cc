import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { CountryLookup, UNKNOWN_COUNTRY } from './country-lookup.js';

describe('CountryLookup', () => {
  let sut: CountryLookup;

  beforeEach(() => {
    sut = new CountryLookup();
  });

  it("reads each family's database on the first lookup that needs it, not before", () => {
    expect(sut.opened).toEqual([]);
    // Private, loopback and other special addresses have no country: nothing to read.
    for (const ip of ['10.0.0.1', '127.0.0.1', '::1', 'fd00::1', 'garbage']) sut.countryOf(ip);
    expect(sut.opened).toEqual([]);
    sut.countryOf('8.8.8.8');
    expect(sut.opened).toEqual(['ipv4']);
    sut.countryOf('2001:4860:4860::8888');
    expect(sut.opened).toEqual(['ipv4', 'ipv6']);
  });

  it.each([
    ['8.8.8.8', 'US'],
    ['193.0.6.139', 'NL'],
    ['::ffff:193.0.6.139', 'NL'],
    ['::ffff:c100:68b', 'NL'],
    ['[::ffff:193.0.6.139]:443', 'NL'],
    ['193.0.6.139:5678', 'NL'],
    ['2001:4860:4860::8888', 'US'],
    ['[2001:4860:4860::8888]:443', 'US'],
    ['2001:67c:2e8:22::c100:68b', 'NL'],
  ])('%s → %s', (ip, country) => {
    expect(sut.countryOf(ip)).toBe(country);
  });

  it.each([
    ['no address', undefined],
    ['an empty address', ''],
    ['a private address', '10.0.0.1'],
    ['a private address (172.16/12)', '172.20.1.1'],
    ['a private address (192.168/16)', '192.168.1.1'],
    ['a shared (CGNAT) address', '100.64.0.1'],
    ['a loopback address', '127.0.0.1'],
    ['an IPv4-mapped loopback address', '::ffff:127.0.0.1'],
    ['the IPv6 loopback address', '::1'],
    ['the unspecified address', '::'],
    ['the IPv4 unspecified address', '0.0.0.0'],
    ['a link-local address', '169.254.1.1'],
    ['an IPv6 link-local address with a zone', 'fe80::1%eth0'],
    ['a unique-local address', 'fd12:3456:789a::1'],
    ['a documentation address', '192.0.2.1'],
    ['an IPv6 documentation address', '2001:db8::1'],
    ['a multicast address', '224.0.0.1'],
    ['the broadcast address', '255.255.255.255'],
    ['a name', 'localhost'],
    ['garbage', 'not an address'],
    ['control characters', '8.8.8.8\u0000'],
    ['10 KB of digits', '8'.repeat(10_240)],
  ])('answers ZZ for %s', (_name, ip) => {
    expect(sut.countryOf(ip)).toBe(UNKNOWN_COUNTRY);
  });

  it('answers in upper case, two letters or ZZ, for any address', () => {
    for (let i = 0; i < 2000; i++) {
      const ip = `${(i * 7919) % 256}.${(i * 31) % 256}.${(i * 17) % 256}.${i % 256}`;
      expect(sut.countryOf(ip)).toMatch(/^[A-Z]{2}$/);
    }
  });

  it('remembers addresses, never more than its capacity', () => {
    sut = new CountryLookup(undefined, 100);
    for (let i = 0; i < 1000; i++) sut.countryOf(`8.8.${i >> 8}.${i & 255}`);
    expect(sut.cacheSize).toBe(100);
    for (let i = 0; i < 1000; i++) sut.countryOf(`garbage ${i}`);
    expect(sut.cacheSize).toBe(100);
  });

  it('answers ZZ for everything, without throwing, when the database cannot be read, and says so once', () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      sut = new CountryLookup({ ipv4: '/nonexistent/countries-ipv4.mmdb', ipv6: '/nonexistent/countries-ipv6.mmdb' });
      expect(sut.countryOf('8.8.8.8')).toBe(UNKNOWN_COUNTRY);
      expect(sut.countryOf('193.0.6.139')).toBe(UNKNOWN_COUNTRY);
      expect(sut.opened).toEqual(['ipv4']);
      expect(error).toHaveBeenCalledTimes(1);
      expect(error.mock.calls[0][0]).toContain('/nonexistent/countries-ipv4.mmdb');
    } finally {
      error.mockRestore();
    }
  });

  it('answers ZZ, without throwing, when a file is missing from the package (as a slimmed image once had it)', () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      sut = new CountryLookup({
        ipv4: '@ip-location-db/geo-whois-asn-country-mmdb/pruned-ipv4.mmdb',
        ipv6: '@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country-ipv6.mmdb',
      });
      expect(sut.countryOf('8.8.8.8')).toBe(UNKNOWN_COUNTRY);
      expect(sut.countryOf('2001:67c:2e8:22::c100:68b')).toBe('NL');
      expect(error).toHaveBeenCalledTimes(1);
      expect(error.mock.calls[0][0]).toContain('pruned-ipv4.mmdb');
    } finally {
      error.mockRestore();
    }
  });

  it('looks 10,000 cached addresses up in far less than a millisecond each', () => {
    const addresses = Array.from({ length: 100 }, (_, i) => `193.0.6.${i}`);
    for (const ip of addresses) sut.countryOf(ip);
    const started = performance.now();
    for (let i = 0; i < 10_000; i++) sut.countryOf(addresses[i % 100]);
    // About 1 ms on an idle laptop; the bound leaves room for a loaded CI machine.
    expect(performance.now() - started).toBeLessThan(500);
  });
});
