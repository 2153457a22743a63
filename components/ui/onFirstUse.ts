/**
 * A value made the first time it is asked for, then kept. For the Intl formatters the pages keep at module level:
 * the server renders a page before its data arrives and never formats anything, and constructing one formatter
 * reads megabytes of ICU's locale data out of Node's binary into the process's resident memory for good.
 */
export function onFirstUse<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}
