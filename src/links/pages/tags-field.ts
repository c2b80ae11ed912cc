/**
 * The link page's tags field: one line of text, tags separated by spaces or commas (what people
 * type, and what the CSV import reads). The service checks them as it checks the API's `tags`.
 */
const SEPARATORS = /[\s,]+/;

/** The field's value as the API's `tags`: undefined when it names the tags the link has. */
export function tagsFromForm(value: string, current: readonly string[] = []): string[] | undefined {
  const tags = value.split(SEPARATORS).filter(Boolean);
  const folded = [...new Set(tags.map((tag) => tag.toLowerCase()))].sort();
  const unchanged = folded.length === current.length && folded.every((tag, i) => tag === current[i]);
  return unchanged ? undefined : tags;
}

/** A link's tags as the field's value. */
export function tagsForForm(tags: readonly string[]): string {
  return tags.join(' ');
}
