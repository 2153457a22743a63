/**
 * SDL pieces every entity's schema repeats, written once: the mutation result types (CONTRACT §16: `{ok, msg}` and,
 * for most, the entity changed) and the create/modify/delete mutations of an entity whose inputs follow Backend.AI's
 * naming (`create_<field>(<key>, props: Create<Type>Input!): Create<Type>`, and so on).
 */

/** `type <Name> { ok: Boolean, msg: String[, <extra>] }` per entry; `''` for a result of `{ok, msg}` alone. */
export function resultTypes(types: Record<string, string>): string {
  return Object.entries(types)
    .map(([name, extra]) => `type ${name} { ok: Boolean, msg: String${extra ? `, ${extra}` : ''} }`)
    .join('\n  ');
}

/** Result types `<Verb><Entity>` that answer the entity under `field` (`CreateUser { ok, msg, user: User }`). */
export function entityResults(entity: string, field: string, verbs: string[]): Record<string, string> {
  return Object.fromEntries(verbs.map((verb) => [`${verb}${entity}`, `${field}: ${entity}`]));
}

/** Result types of `{ok, msg}` alone. */
export function plainResults(...names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, '']));
}

/** The create, modify and delete mutation fields of an entity addressed by `key` (e.g. `name: String!`). */
export function crudMutations(field: string, type: string, key: string): string {
  return [
    `create_${field}(${key}, props: Create${type}Input!): Create${type}`,
    `modify_${field}(${key}, props: Modify${type}Input!): Modify${type}`,
    `delete_${field}(${key}): Delete${type}`,
  ].join('\n    ');
}
