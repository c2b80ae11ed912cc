/**
 * Every place a link can send a visitor. Moderation works on all of them, never on `url`
 * alone: a link with a harmless `url` and a phishing `ios_url` shows the harmless page to a
 * moderator on a desktop and the phishing page to the phones it was sent to. The blocked-host
 * checks, the admins' search and the report and link pages all read the destinations from
 * here, so a new kind of destination (redirect rules, a split) is added in this file and is
 * then blocked, searched and shown like the others.
 */

import type { TargetField } from './target-url.js';

/** A destination's field in the link resource (and in the requests that set it). */
export type DestinationField = TargetField;

/** The stored columns a link's destinations come from (the links table's, as Prisma names them). */
export interface LinkDestinationColumns {
  url: string;
  iosUrl: string | null;
  androidUrl: string | null;
}

/** One of a link's destinations. */
export interface LinkDestination {
  field: DestinationField;
  /** Who is sent there, for the admins' pages. */
  label: string;
  url: string;
}

/** Each kind of destination: its field, its column, and who goes there. */
const DESTINATIONS = [
  { field: 'url', column: 'url', label: 'Everyone else' },
  { field: 'ios_url', column: 'iosUrl', label: 'iPhone, iPad, iPod' },
  { field: 'android_url', column: 'androidUrl', label: 'Android' },
] as const satisfies ReadonlyArray<{ field: DestinationField; column: keyof LinkDestinationColumns; label: string }>;

/** The columns that hold destination URLs: what a search of destinations looks in. */
export const DESTINATION_COLUMNS: ReadonlyArray<keyof LinkDestinationColumns> = DESTINATIONS.map(
  (destination) => destination.column,
);

/**
 * A link's destinations, `url` first, those it has only; of a change, those it sets (a column
 * left undefined or set to null is no destination).
 */
export function destinationsOf(link: { [Column in keyof LinkDestinationColumns]?: string | null }): LinkDestination[] {
  const found: LinkDestination[] = [];
  for (const { field, column, label } of DESTINATIONS) {
    const url = link[column];
    if (typeof url === 'string') found.push({ field, label, url });
  }
  return found;
}

/** A link's destination URLs, `url` first. */
export function destinationUrls(link: { [Column in keyof LinkDestinationColumns]?: string | null }): string[] {
  return destinationsOf(link).map((destination) => destination.url);
}
