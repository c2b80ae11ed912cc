import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BlockList } from 'node:net';
import { Logger } from '@nestjs/common';
// maxmind: MIT (with mmdb-lib, MIT, and tiny-lru, BSD-3-Clause).
import { Reader, type CountryResponse } from 'maxmind';
import { LruCache } from '../../common/lru-cache.js';
import { parseAddress } from './client-address.js';

/** ISO 3166-1's user-assigned code, for an address no country can be told for. */
export const UNKNOWN_COUNTRY = 'ZZ';
/** Addresses remembered: a returning visitor, or a burst from one, is looked up once. */
export const COUNTRY_CACHE_SIZE = 10_000;

/**
 * The IP-to-country database that ships with the package (nothing is downloaded at install or run
 * time): @ip-location-db/geo-whois-asn-country-mmdb, country codes by address range merged from
 * providers' geofeeds, the five regional internet registries' whois data and their ASN
 * assignments. Its package.json says CC0-1.0; its README and NRO_LICENSE say the registries' data
 * is the NRO's under CC BY 4.0, which allows redistribution with attribution: "IP-to-country data
 * by the Number Resource Organization (nro.net), CC BY 4.0, through sapics/ip-location-db".
 *
 * Two files, one per address family, each read on the first lookup of its family: IPv4 (2.9
 * MiB) and IPv6 (4.6 MiB). A service whose clients all come over IPv4 (or through a proxy that
 * forwards IPv4 addresses) never holds the IPv6 one; the package's combined file would cost both.
 *
 * Module specifiers (or paths), resolved when a family is first needed: a file missing from an
 * install (a slimmed image, a pruned package) leaves that family's countries `ZZ`, logged once,
 * rather than stopping the service at start-up.
 */
export const COUNTRY_DATABASES: Readonly<Record<Family, string>> = {
  ipv4: '@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country-ipv4.mmdb',
  ipv6: '@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country-ipv6.mmdb',
};
const resolveFile = createRequire(import.meta.url).resolve;

type Family = 'ipv4' | 'ipv6';

/**
 * The database's records are `{ country_code: 'NL' }`, not MaxMind's shape; the reader's type
 * parameter wants one of MaxMind's, whose fields are all optional.
 */
type CountryRecord = CountryResponse & { readonly country_code?: unknown };

/**
 * Ranges whose addresses are never a client on the internet (IANA's special-purpose registries):
 * private, shared (CGNAT), loopback, link-local, unique-local, documentation, benchmarking,
 * multicast, reserved. They are `ZZ` whatever the database says.
 */
function specialPurpose(): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const) {
    list.addSubnet(network, prefix, 'ipv4');
  }
  for (const [network, prefix] of [
    ['::', 127], // unspecified and loopback
    ['100::', 64], // discard-only
    ['2001:db8::', 32], // documentation
    ['fc00::', 7], // unique-local
    ['fe80::', 10], // link-local
    ['fec0::', 10], // site-local (deprecated)
    ['ff00::', 8], // multicast
  ] as const) {
    list.addSubnet(network, prefix, 'ipv6');
  }
  return list;
}

const SPECIAL_PURPOSE = specialPurpose();

/**
 * The country of a client's IP address. Each family's database is read into memory on the first
 * lookup of an address of that family that could have a country, not before: a service that
 * never counts a click from the internet (only from private or loopback addresses) never holds
 * either.
 */
export class CountryLookup {
  private readonly logger = new Logger(CountryLookup.name);
  private readonly cache: LruCache<string, string>;
  /** Per family: absent until its first lookup; null when its file could not be read. */
  private readonly readers = new Map<Family, Reader<CountryRecord> | null>();

  constructor(
    private readonly databaseFiles: Readonly<Record<Family, string>> = COUNTRY_DATABASES,
    capacity = COUNTRY_CACHE_SIZE,
  ) {
    this.cache = new LruCache(capacity);
  }

  /** Which families' databases have been read (or tried). */
  get opened(): Family[] {
    return [...this.readers.keys()];
  }

  get cacheSize(): number {
    return this.cache.size;
  }

  /**
   * ISO 3166-1 alpha-2 in upper case, or `ZZ` when unknown: no address, not an address, a
   * special-purpose one, one the database has no country for. Takes what {@link parseAddress}
   * takes. Never throws.
   */
  countryOf(ip: string | undefined): string {
    if (typeof ip !== 'string' || ip === '') return UNKNOWN_COUNTRY;
    const cached = this.cache.get(ip);
    if (cached !== undefined) return cached;
    const address = parseAddress(ip);
    // Not an address: nothing to remember (reading it again costs less than a place in the cache).
    if (address === undefined) return UNKNOWN_COUNTRY;
    const country = this.lookUp(address);
    this.cache.set(ip, country);
    return country;
  }

  private lookUp(address: string): string {
    const family: Family = address.includes(':') ? 'ipv6' : 'ipv4';
    if (SPECIAL_PURPOSE.check(address, family)) return UNKNOWN_COUNTRY;
    const reader = this.open(family);
    if (reader === null) return UNKNOWN_COUNTRY;
    try {
      const code = reader.get(address)?.country_code;
      if (typeof code !== 'string') return UNKNOWN_COUNTRY;
      const upper = code.toUpperCase();
      return /^[A-Z]{2}$/.test(upper) ? upper : UNKNOWN_COUNTRY;
    } catch {
      return UNKNOWN_COUNTRY;
    }
  }

  private open(family: Family): Reader<CountryRecord> | null {
    const known = this.readers.get(family);
    if (known !== undefined) return known;
    const file = this.databaseFiles[family];
    let reader: Reader<CountryRecord> | null;
    try {
      // Synchronous, once per family: a few milliseconds, on the first flush with such a click.
      reader = new Reader<CountryRecord>(readFileSync(resolveFile(file)), {
        // Decoded records by offset: a country database has a few hundred.
        cache: new LruCache<string | number, unknown>(1000),
      });
    } catch (error) {
      this.logger.error(
        `Cannot read the IP-to-country database ${file}: every ${family} country is ${UNKNOWN_COUNTRY} (${String(error)})`,
      );
      reader = null;
    }
    this.readers.set(family, reader);
    return reader;
  }
}
