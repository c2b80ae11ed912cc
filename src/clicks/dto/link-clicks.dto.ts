import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { DEVICES, type Device } from '../visitors/user-agent.js';

export const DEFAULT_CLICK_DAYS = 30;
export const MAX_CLICK_DAYS = 366;

// Query values arrive as strings. Only plain decimal integers become numbers; anything else
// ("abc", "1e3", "1.5", "", a repeated parameter) stays as given and fails @IsInt.
const toStrictInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;

/** `?days=` of the clicks endpoints. */
export class LinkClicksQueryDto {
  /**
   * How many UTC days to show, today included: 1 to 366.
   * @example 30
   */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_CLICK_DAYS, default: DEFAULT_CLICK_DAYS })
  @IsOptional()
  @Transform(toStrictInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_CLICK_DAYS)
  days?: number;
}

/** A link's clicks on one UTC day. */
@ApiSchema({ name: 'DailyClicks' })
export class DailyClicksDto {
  /**
   * The UTC day.
   * @example "2026-11-24"
   */
  @ApiProperty({ format: 'date' })
  date!: string;

  /**
   * Redirects (GET) served that day, bots included.
   * @example 12
   */
  @ApiProperty({ type: 'integer', minimum: 0 })
  clicks!: number;

  /**
   * Of that day's clicks, those from bots: crawlers, link-preview fetchers, uptime monitors,
   * headless browsers and scripts, recognised by their `User-Agent` (none counts as a bot).
   * @example 3
   */
  @ApiProperty({ type: 'integer', minimum: 0 })
  bots!: number;
}

/** Clicks that came from one referring site. */
@ApiSchema({ name: 'ReferrerClicks' })
export class ReferrerClicksDto {
  /**
   * The host of the `Referer` the clicks carried, `(direct)` for none.
   * @example "news.example"
   */
  host!: string;

  /**
   * People's clicks from that host in the window (bots' are not counted here).
   * @example 7
   */
  @ApiProperty({ type: 'integer', minimum: 1 })
  clicks!: number;
}

/** People's clicks from one country. */
@ApiSchema({ name: 'CountryClicks' })
export class CountryClicksDto {
  /**
   * ISO 3166-1 alpha-2 country code of the client's IP address; `ZZ` when it is unknown (a
   * private or loopback address, or one the bundled database has no country for).
   * @example "NL"
   */
  @ApiProperty({ pattern: '^[A-Z]{2}$' })
  country!: string;

  /**
   * People's clicks from that country in the window.
   * @example 7
   */
  @ApiProperty({ type: 'integer', minimum: 1 })
  clicks!: number;
}

/** People's clicks from one kind of device. */
@ApiSchema({ name: 'DeviceClicks' })
export class DeviceClicksDto {
  /**
   * The kind of device the `User-Agent` names.
   * @example "mobile"
   */
  @ApiProperty({ enum: DEVICES })
  device!: Device;

  /**
   * People's clicks from that kind of device in the window.
   * @example 7
   */
  @ApiProperty({ type: 'integer', minimum: 1 })
  clicks!: number;
}

/** People's clicks from one browser. */
@ApiSchema({ name: 'BrowserClicks' })
export class BrowserClicksDto {
  /**
   * The browser's name as the user-agent parser (bowser) gives it, `Other` when unknown.
   * @example "Chrome"
   */
  browser!: string;

  /**
   * People's clicks from that browser in the window.
   * @example 7
   */
  @ApiProperty({ type: 'integer', minimum: 1 })
  clicks!: number;
}

/** People's clicks from one operating system. */
@ApiSchema({ name: 'OsClicks' })
export class OsClicksDto {
  /**
   * The operating system's name as the user-agent parser (bowser) gives it, `Other` when unknown.
   * @example "Android"
   */
  os!: string;

  /**
   * People's clicks from that operating system in the window.
   * @example 7
   */
  @ApiProperty({ type: 'integer', minimum: 1 })
  clicks!: number;
}

/** A link's clicks: all-time, per UTC day and by referring host. */
@ApiSchema({ name: 'LinkClicks' })
export class LinkClicksDto {
  /**
   * The link's short code.
   * @example "Ab3dE9x"
   */
  code!: string;

  /**
   * All clicks since the link was created (the link's `clicks`).
   * @example 120
   */
  @ApiProperty({ type: 'integer', minimum: 0 })
  total!: number;

  /** Every UTC day of the window, oldest first, today last, zeros included. */
  days!: DailyClicksDto[];

  /**
   * The bots' clicks over the window (the sum of `days[].bots`).
   * @example 9
   */
  @ApiProperty({ type: 'integer', minimum: 0 })
  bots!: number;

  /** The top 10 referring hosts of people's clicks over the window, most clicks first. */
  referrers!: ReferrerClicksDto[];

  /** The top 10 countries of people's clicks over the window, most clicks first. */
  countries!: CountryClicksDto[];

  /** People's clicks over the window by kind of device, most clicks first. */
  devices!: DeviceClicksDto[];

  /** The top 10 browsers of people's clicks over the window, most clicks first. */
  browsers!: BrowserClicksDto[];

  /** The top 10 operating systems of people's clicks over the window, most clicks first. */
  os!: OsClicksDto[];
}

/** Clicks on one link over a window. */
@ApiSchema({ name: 'LinkWindowClicks' })
export class LinkWindowClicksDto {
  /**
   * The link's short code.
   * @example "Ab3dE9x"
   */
  code!: string;

  /**
   * The link's clicks in the window, bots included.
   * @example 42
   */
  @ApiProperty({ type: 'integer', minimum: 1 })
  clicks!: number;
}

/** All of an account's links' clicks over a window. */
@ApiSchema({ name: 'AccountClicks' })
export class AccountClicksDto {
  /**
   * Every click on the account's links over the window, bots included (the sum of `days[].clicks`).
   * @example 1200
   */
  @ApiProperty({ type: 'integer', minimum: 0 })
  total!: number;

  /**
   * The bots' clicks over the window (the sum of `days[].bots`).
   * @example 90
   */
  @ApiProperty({ type: 'integer', minimum: 0 })
  bots!: number;

  /** Every UTC day of the window, oldest first, today last, zeros included. */
  days!: DailyClicksDto[];

  /** The 10 links with most clicks over the window (bots included), most first. */
  links!: LinkWindowClicksDto[];

  /** The top 10 countries of people's clicks over the window, most clicks first. */
  countries!: CountryClicksDto[];

  /** The top 10 referring hosts of people's clicks over the window, most clicks first. */
  referrers!: ReferrerClicksDto[];
}
