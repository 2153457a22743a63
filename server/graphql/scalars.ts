/**
 * Custom scalars, with the wire forms of Backend.AI's graphene schema: DateTime as ISO 8601 text, UUID as canonical
 * hyphenated text, JSONString as JSON *text* (clients JSON.parse it), BigInt as a JSON number beyond 32 bits.
 */
import { GraphQLScalarType, Kind, valueFromASTUntyped, type ValueNode } from 'graphql';
import { canonicalUuid } from '../util/uuid';

function parseDateTime(value: unknown): Date {
  if (typeof value !== 'string') throw new TypeError('DateTime must be an ISO 8601 string.');
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new TypeError(`Invalid DateTime: ${value}`);
  return date;
}

export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An ISO 8601 timestamp with an explicit offset.',
  serialize(value) {
    if (value instanceof Date) return value.toISOString();
    if (typeof value === 'string' || typeof value === 'number') return new Date(value).toISOString();
    throw new TypeError('DateTime cannot represent this value.');
  },
  parseValue: parseDateTime,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new TypeError('DateTime must be an ISO 8601 string.');
    return parseDateTime(ast.value);
  },
});

function parseUuid(value: unknown): string {
  const uuid = typeof value === 'string' ? canonicalUuid(value) : null;
  if (!uuid) throw new TypeError(`Invalid UUID: ${String(value)}`);
  return uuid;
}

export const UUIDScalar = new GraphQLScalarType({
  name: 'UUID',
  description: 'A UUID in canonical hyphenated form.',
  serialize: (value) => String(value),
  parseValue: parseUuid,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new TypeError('UUID must be a string.');
    return parseUuid(ast.value);
  },
});

function parseJsonString(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw new TypeError('JSONString must hold valid JSON text.');
  }
}

export const JSONStringScalar = new GraphQLScalarType({
  name: 'JSONString',
  description: 'A JSON value sent and returned as JSON text; inputs also accept the value itself.',
  serialize: (value) => JSON.stringify(value ?? null),
  parseValue: parseJsonString,
  parseLiteral(ast: ValueNode, variables) {
    if (ast.kind === Kind.STRING) return parseJsonString(ast.value);
    return valueFromASTUntyped(ast, variables);
  },
});

function parseBigInt(value: unknown): number {
  const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new TypeError(`BigInt cannot represent ${String(value)}.`);
  return n;
}

export const BigIntScalar = new GraphQLScalarType({
  name: 'BigInt',
  description: 'An integer that may exceed 32 bits.',
  serialize(value) {
    const n = typeof value === 'bigint' ? Number(value) : Number(value);
    if (!Number.isFinite(n)) throw new TypeError('BigInt cannot represent this value.');
    return n;
  },
  parseValue: parseBigInt,
  parseLiteral(ast) {
    if (ast.kind !== Kind.INT && ast.kind !== Kind.STRING) throw new TypeError('BigInt must be an integer.');
    return parseBigInt(ast.value);
  },
});

export const scalarTypeDefs = /* GraphQL */ `
  scalar DateTime
  scalar UUID
  scalar JSONString
  scalar BigInt
`;

export const scalarResolvers = {
  DateTime: DateTimeScalar,
  UUID: UUIDScalar,
  JSONString: JSONStringScalar,
  BigInt: BigIntScalar,
};
