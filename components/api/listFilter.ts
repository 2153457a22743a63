/**
 * Pieces of the manager's list filter language (server/graphql/filter.ts) the pages build filters from. No
 * imports, so the unit tests load it as is.
 */

/** A text value inside a GraphQL list filter: quotes and backslashes escaped. */
export function filterString(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}

/** An ilike pattern matching `text` anywhere: the `%` and `_` a person types are matched literally. */
export function containsPattern(text: string): string {
  return filterString(`%${text.replace(/[\\%_]/g, '\\$&')}%`);
}

/** A search box over names: the name contains the text, any case; nothing typed, no filter. */
export function nameFilter(search: string): string | null {
  const text = search.trim();
  return text ? `name ilike ${containsPattern(text)}` : null;
}
