import type {
  BrowserClicksDto,
  CountryClicksDto,
  DeviceClicksDto,
  OsClicksDto,
  ReferrerClicksDto,
} from '../dto/link-clicks.dto.js';
import { UNKNOWN_COUNTRY } from '../visitors/country-lookup.js';

/** One ranking on a click page, ready to render as a table. */
export interface ClickTable {
  /** For the heading's id. */
  id: string;
  heading: string;
  /** The first column's header. */
  column: string;
  rows: Array<{ label: string; clicks: number; share: string }>;
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** `Netherlands (NL)`; `Unknown` for ZZ (an address no country could be told for). */
export function countryName(code: string): string {
  if (code === UNKNOWN_COUNTRY) return 'Unknown';
  try {
    const name = regionNames.of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

const DEVICE_NAMES: Record<string, string> = { desktop: 'Desktop', mobile: 'Mobile', tablet: 'Tablet', other: 'Other' };

/** `(direct)` said in words. */
export function referrerName(host: string): string {
  return host === '(direct)' ? 'Direct (no referring site)' : host;
}

/** The share of `people` as a whole percentage (`<1%` for a sliver). */
function share(clicks: number, people: number): string {
  if (people <= 0) return '–';
  const percent = (clicks / people) * 100;
  return percent > 0 && percent < 1 ? '<1%' : `${Math.round(percent)}%`;
}

function table(
  id: string,
  heading: string,
  column: string,
  rows: Array<{ label: string; clicks: number }>,
  people: number,
): ClickTable {
  return { id, heading, column, rows: rows.map((row) => ({ ...row, share: share(row.clicks, people) })) };
}

/**
 * The visitor tables of a link's page: countries, devices, browsers and operating systems of
 * `people` clicks (the window's clicks without the bots'), each as the API ranks it.
 */
export function visitorTables(
  clicks: {
    countries: CountryClicksDto[];
    devices: DeviceClicksDto[];
    browsers: BrowserClicksDto[];
    os: OsClicksDto[];
  },
  people: number,
): ClickTable[] {
  return [
    table(
      'countries',
      'Countries',
      'Country',
      clicks.countries.map((row) => ({ label: countryName(row.country), clicks: row.clicks })),
      people,
    ),
    table(
      'devices',
      'Devices',
      'Device',
      clicks.devices.map((row) => ({ label: DEVICE_NAMES[row.device] ?? row.device, clicks: row.clicks })),
      people,
    ),
    table(
      'browsers',
      'Browsers',
      'Browser',
      clicks.browsers.map((row) => ({ label: row.browser, clicks: row.clicks })),
      people,
    ),
    table(
      'systems',
      'Operating systems',
      'Operating system',
      clicks.os.map((row) => ({ label: row.os, clicks: row.clicks })),
      people,
    ),
  ];
}

/** The account overview's tables: countries and referring sites of `people` clicks. */
export function overviewTables(
  clicks: { countries: CountryClicksDto[]; referrers: ReferrerClicksDto[] },
  people: number,
): ClickTable[] {
  return [
    table(
      'countries',
      'Countries',
      'Country',
      clicks.countries.map((row) => ({ label: countryName(row.country), clicks: row.clicks })),
      people,
    ),
    table(
      'referrers',
      'Top referrers',
      'Site',
      clicks.referrers.map((row) => ({ label: referrerName(row.host), clicks: row.clicks })),
      people,
    ),
  ];
}
