import { MAX_FORWARDED_FOR_LENGTH, clientAddress, parseAddress } from './client-address.js';

describe('parseAddress', () => {
  it.each([
    ['8.8.8.8', '8.8.8.8'],
    [' 8.8.8.8 ', '8.8.8.8'],
    ['8.8.8.8:5678', '8.8.8.8'],
    ['2001:4860:4860::8888', '2001:4860:4860::8888'],
    ['2001:4860:4860:0:0:0:0:8888', '2001:4860:4860::8888'],
    ['2001:DB8::1', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    // A bare IPv6 address has no port: this is the address ending in :443.
    ['2001:db8::1:443', '2001:db8::1:443'],
    ['fe80::1%eth0', 'fe80::1'],
    ['[fe80::1%25eth0]:80', 'fe80::1'],
    ['::1', '::1'],
    ['::ffff:193.0.6.139', '193.0.6.139'],
    ['::FFFF:193.0.6.139', '193.0.6.139'],
    ['::ffff:c100:68b', '193.0.6.139'],
    ['[::ffff:193.0.6.139]:8080', '193.0.6.139'],
    ['0:0:0:0:0:ffff:8.8.8.8', '8.8.8.8'],
  ])('%p → %p', (text, address) => {
    expect(parseAddress(text)).toBe(address);
  });

  it.each([
    undefined,
    '',
    ' ',
    'unknown',
    'localhost',
    '_hidden',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3.4:',
    '1.2.3.4:123456',
    '1.2.3.4%eth0',
    '[1.2.3.4]',
    '[1.2.3.4]:80',
    '[2001:db8::1',
    '2001:db8::1]',
    '[2001:db8::1]:',
    '[2001:db8::1]x',
    '2001:db8:::1',
    ':::',
    '8.8.8.8\u0000',
    '8.8.\n8.8',
    '８.８.８.８',
    `${'1'.repeat(100)}.1.1.1`,
    `2001:db8::1%${'x'.repeat(100)}`,
  ])('finds no address in %j', (text) => {
    expect(parseAddress(text)).toBeUndefined();
  });
});

describe('clientAddress', () => {
  const socket = '203.0.113.9';

  describe('without a trusted proxy', () => {
    it('takes the socket address and ignores X-Forwarded-For', () => {
      expect(clientAddress('8.8.8.8', socket, false)).toBe(socket);
      expect(clientAddress(['8.8.8.8'], '::ffff:203.0.113.9', false)).toBe(socket);
      expect(clientAddress('8.8.8.8', undefined, false)).toBeUndefined();
    });
  });

  describe('behind a trusted proxy', () => {
    it.each([
      ['8.8.8.8', '8.8.8.8'],
      ['8.8.8.8, 10.0.0.1', '8.8.8.8'],
      ['8.8.8.8,10.0.0.1,172.16.0.1', '8.8.8.8'],
      ['  8.8.8.8  , 10.0.0.1', '8.8.8.8'],
      ['8.8.8.8:5678, 10.0.0.1', '8.8.8.8'],
      ['[2001:db8::1]:443, 10.0.0.1', '2001:db8::1'],
      ['2001:4860:4860::8888', '2001:4860:4860::8888'],
      ['::ffff:8.8.8.8', '8.8.8.8'],
    ])('takes the first entry of %p', (header, address) => {
      expect(clientAddress(header, socket, true)).toBe(address);
    });

    it('takes the first of several headers', () => {
      expect(clientAddress(['8.8.8.8, 10.0.0.1', '9.9.9.9'], socket, true)).toBe('8.8.8.8');
    });

    it.each([
      ['no header', undefined],
      ['an empty header', ''],
      ['an empty list', []],
      ['an empty first entry', ', 8.8.8.8'],
      ['a name', 'unknown, 8.8.8.8'],
      ['an obfuscated identifier (RFC 7239 style)', '_abc, 8.8.8.8'],
      ['control characters', '8.8.8.8\u0000\r\n, 9.9.9.9'],
      ['a first entry longer than is read', `${' '.repeat(MAX_FORWARDED_FOR_LENGTH)}8.8.8.8`],
      ['10 KB of garbage', 'x'.repeat(10_240)],
      ['10 KB of digits and dots', '1.'.repeat(5_120)],
    ])('falls back to the socket address for %s', (_name, header) => {
      expect(clientAddress(header, socket, true)).toBe(socket);
      expect(clientAddress(header, undefined, true)).toBeUndefined();
    });

    it('reads a header of 1,000 entries no further than its first', () => {
      const header = Array.from({ length: 1000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`).join(', ');
      expect(clientAddress(`8.8.8.8, ${header}`, socket, true)).toBe('8.8.8.8');
      expect(clientAddress(header, socket, true)).toBe('10.0.0.0');
    });

    it('never throws, whatever the header', () => {
      const headers: unknown[] = [
        'x'.repeat(1_000_000),
        ',,,,,,,,',
        '[[[[[',
        '\uD800',
        '%%%%',
        Array.from({ length: 1000 }, () => '8.8.8.8'),
      ];
      for (const header of headers) {
        expect(() => clientAddress(header as string, 'garbage', true)).not.toThrow();
      }
    });
  });
});
