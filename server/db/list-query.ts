/**
 * `*_list` pagination (CONTRACT §16: `limit, offset, filter, order` → `{items, total_count}`, limit ≤ 100) and the
 * small filter and order languages of Backend.AI's list queries, limited to the fields each list names:
 *
 *   filter: email ilike "%@example.com" & (role == "admin" | status != "active")
 *           comparisons ==, !=, <, <=, >, >=, like, ilike, contains, in [..], not in [..], is null, is not null;
 *           & (and), | (or), ! (not), parentheses; values "text", 'text', numbers, true, false, null.
 *   order:  "-created_at", "+email", "email asc, created_at desc".
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import type { AnyExpressionBuilder, AnySelect } from './untyped';
import { canonicalUuid } from '../util/uuid';
import { badRequest } from '../http/problem';

export type FieldType = 'string' | 'number' | 'boolean' | 'datetime' | 'uuid';
export interface FieldSpec {
  column: string;
  type: FieldType;
  /**
   * For a boolean field kept as text: the column's value that reads as true (e.g. users' is_active is
   * status = 'active'). Such a field compares only with == and != (or is [not] null).
   */
  trueWhen?: string;
  /**
   * A value kept in another table, one row per match: the comparison holds when any row of `table` whose `key`
   * equals this field's `column` matches on `value` (e.g. a session's agents: kernels.agent_id by session_id).
   * `!=` and `not in` hold when no row matches.
   */
  through?: { table: string; key: string; value: string };
}
export type FieldMap = Record<string, FieldSpec>;

/**
 * A field map written by type: `fieldsOf('e', { uuid: ['id', 'project:group_id'], string: ['name', 'user_email:u.email'] })`.
 * Each entry is a field named as its column of `alias` (`alias` null: an unqualified column), or `field:column` when
 * the names differ; a column with a dot is taken as written (a joined table's). Fields needing more than a column
 * and a type (`trueWhen`, `through`) are spread in beside it.
 */
export function fieldsOf(alias: string | null, byType: Partial<Record<FieldType, string[]>>): FieldMap {
  const map: FieldMap = {};
  for (const [type, entries] of Object.entries(byType) as [FieldType, string[]][]) {
    for (const entry of entries) {
      const [field, named = field] = entry.split(':');
      map[field] = { column: named.includes('.') || !alias ? named : `${alias}.${named}`, type };
    }
  }
  return map;
}

export const MAX_LIMIT = 100;

export interface ListArgs {
  limit?: number | null;
  offset?: number | null;
  filter?: string | null;
  order?: string | null;
}

type Scalar = string | number | boolean | Date | null;
type CmpOp = '=' | '<>' | '<' | '<=' | '>' | '>=' | 'like' | 'ilike' | 'in' | 'not in' | 'is' | 'is not';
type FilterNode =
  | { kind: 'and' | 'or'; items: FilterNode[] }
  | { kind: 'not'; item: FilterNode }
  | { kind: 'cmp'; column: string; op: CmpOp; value: Scalar | Scalar[] }
  | { kind: 'through'; column: string; table: string; key: string; negate: boolean; item: FilterNode & { kind: 'cmp' } };

interface Token {
  kind: 'word' | 'string' | 'number' | 'punct';
  text: string;
  value?: string | number;
}

const TOKEN_RE = /\s*(?:(==|!=|<=|>=|&&|\|\||[<>=()[\],&|!])|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w.])|([A-Za-z_][\w.]*))/y;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  TOKEN_RE.lastIndex = 0;
  let at = 0;
  while (at < text.length) {
    if (/^\s*$/.test(text.slice(at))) break;
    TOKEN_RE.lastIndex = at;
    const m = TOKEN_RE.exec(text);
    if (!m) throw badRequest(`filter: unexpected text at position ${at}: ${text.slice(at, at + 20)}`);
    at = TOKEN_RE.lastIndex;
    if (m[1]) tokens.push({ kind: 'punct', text: m[1] });
    else if (m[2]) tokens.push({ kind: 'string', text: m[2], value: m[2].slice(1, -1).replace(/\\(.)/g, '$1') });
    else if (m[3]) tokens.push({ kind: 'number', text: m[3], value: Number(m[3]) });
    else tokens.push({ kind: 'word', text: m[4] });
  }
  return tokens;
}

class FilterParser {
  private at = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly fields: FieldMap,
  ) {}

  parse(): FilterNode {
    const node = this.or();
    if (this.peek()) throw badRequest(`filter: unexpected ${this.peek()!.text}`);
    return node;
  }

  private peek(): Token | undefined {
    return this.tokens[this.at];
  }

  private isWord(...words: string[]): boolean {
    const t = this.peek();
    return t?.kind === 'word' && words.includes(t.text.toLowerCase());
  }

  private isPunct(...texts: string[]): boolean {
    const t = this.peek();
    return t?.kind === 'punct' && texts.includes(t.text);
  }

  private next(): Token {
    const t = this.tokens[this.at++];
    if (!t) throw badRequest('filter: the expression ends too early.');
    return t;
  }

  private expectPunct(text: string): void {
    const t = this.next();
    if (t.kind !== 'punct' || t.text !== text) throw badRequest(`filter: expected ${text}, found ${t.text}`);
  }

  private or(): FilterNode {
    return this.joined('or', ['|', '||'], () => this.and());
  }

  private and(): FilterNode {
    return this.joined('and', ['&', '&&'], () => this.unary());
  }

  /** `operand (op operand)*`, where op is one of `puncts` or the word `kind`: one operand stands alone. */
  private joined(kind: 'and' | 'or', puncts: string[], operand: () => FilterNode): FilterNode {
    const items = [operand()];
    while (this.isPunct(...puncts) || this.isWord(kind)) {
      this.next();
      items.push(operand());
    }
    return items.length === 1 ? items[0] : { kind, items };
  }

  private unary(): FilterNode {
    if (this.isPunct('!') || this.isWord('not')) {
      this.next();
      return { kind: 'not', item: this.unary() };
    }
    if (this.isPunct('(')) {
      this.next();
      const node = this.or();
      this.expectPunct(')');
      return node;
    }
    return this.comparison();
  }

  private comparison(): FilterNode {
    const name = this.next();
    if (name.kind !== 'word') throw badRequest(`filter: expected a field name, found ${name.text}`);
    const field = this.fields[name.text];
    if (!field) throw badRequest(`filter: unknown field ${name.text}; known fields: ${Object.keys(this.fields).join(', ')}`);
    if (field.through) {
      const { table, key, value } = field.through;
      const item = this.compare(name, { column: value, type: field.type });
      if (item.op === 'is' || item.op === 'is not') throw badRequest(`filter: ${name.text} does not compare with null.`);
      const negate = item.op === '<>' || item.op === 'not in';
      const op: CmpOp = item.op === '<>' ? '=' : item.op === 'not in' ? 'in' : item.op;
      return { kind: 'through', column: field.column, table, key, negate, item: { ...item, op } };
    }
    return this.compare(name, field);
  }

  private compare(name: Token, field: FieldSpec): FilterNode & { kind: 'cmp' } {
    const opToken = this.next();
    const op = opToken.text.toLowerCase();
    if (op === 'is' || op === 'isnot') {
      const negated = op === 'isnot' || (this.isWord('not') && Boolean(this.next()));
      const value = this.next();
      if (value.kind !== 'word' || value.text.toLowerCase() !== 'null') throw badRequest('filter: only null may follow is.');
      return { kind: 'cmp', column: field.column, op: negated ? 'is not' : 'is', value: null };
    }
    if (field.trueWhen !== undefined && (op === 'in' || op === 'not' || op === 'notin')) throw badRequest(`filter: ${name.text} compares only with == or !=.`);
    if (op === 'not' || op === 'notin') {
      if (op === 'not' && !(this.isWord('in') && this.next())) throw badRequest('filter: expected in after not.');
      return { kind: 'cmp', column: field.column, op: 'not in', value: this.list(name.text, field) };
    }
    if (op === 'in') return { kind: 'cmp', column: field.column, op: 'in', value: this.list(name.text, field) };
    if (op === 'like' || op === 'ilike' || op === 'contains') {
      if (field.type !== 'string') throw badRequest(`filter: ${op} needs a text field; ${name.text} is not one.`);
      const raw = this.value(name.text, field);
      if (typeof raw !== 'string') throw badRequest(`filter: ${op} needs a quoted text value.`);
      if (op === 'contains') return { kind: 'cmp', column: field.column, op: 'like', value: `%${raw.replace(/[\\%_]/g, '\\$&')}%` };
      return { kind: 'cmp', column: field.column, op, value: raw };
    }
    const compare: Record<string, CmpOp> = { '==': '=', '=': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };
    const sqlOp = opToken.kind === 'punct' ? compare[op] : undefined;
    if (!sqlOp) throw badRequest(`filter: unknown operator ${opToken.text}`);
    const value = this.value(name.text, field);
    if (value === null) {
      if (sqlOp !== '=' && sqlOp !== '<>') throw badRequest('filter: null compares only with == or !=.');
      return { kind: 'cmp', column: field.column, op: sqlOp === '=' ? 'is' : 'is not', value: null };
    }
    if (field.type === 'boolean' && sqlOp !== '=' && sqlOp !== '<>') throw badRequest(`filter: ${name.text} compares only with == or !=.`);
    if (field.trueWhen !== undefined) {
      const holds = (value === true) === (sqlOp === '=');
      return { kind: 'cmp', column: field.column, op: holds ? '=' : '<>', value: field.trueWhen };
    }
    return { kind: 'cmp', column: field.column, op: sqlOp, value };
  }

  private list(name: string, field: FieldSpec): Scalar[] {
    this.expectPunct('[');
    const values: Scalar[] = [];
    while (!this.isPunct(']')) {
      values.push(this.value(name, field));
      if (!this.isPunct(']')) this.expectPunct(',');
    }
    this.next();
    return values;
  }

  private value(name: string, field: FieldSpec): Scalar {
    const t = this.next();
    if (t.kind === 'word') {
      const word = t.text.toLowerCase();
      if (word === 'null' || word === 'none') return null;
      if ((word === 'true' || word === 'false') && field.type === 'boolean') return word === 'true';
      throw badRequest(`filter: ${t.text} is not a value for ${name}; quote text values.`);
    }
    if (t.kind === 'punct') throw badRequest(`filter: expected a value for ${name}, found ${t.text}`);
    switch (field.type) {
      case 'number':
        if (t.kind !== 'number' || !Number.isFinite(t.value)) throw badRequest(`filter: ${name} takes a (finite) number.`);
        return t.value as number;
      case 'boolean':
        throw badRequest(`filter: ${name} takes true or false.`);
      case 'datetime': {
        const date = new Date(String(t.value));
        if (t.kind !== 'string' || Number.isNaN(date.getTime())) throw badRequest(`filter: ${name} takes a quoted ISO 8601 timestamp.`);
        return date;
      }
      case 'uuid': {
        const uuid = t.kind === 'string' ? canonicalUuid(String(t.value)) : null;
        if (!uuid) throw badRequest(`filter: ${name} takes a quoted UUID.`);
        return uuid;
      }
      default:
        if (t.kind !== 'string') throw badRequest(`filter: ${name} takes a quoted text value.`);
        return t.value as string;
    }
  }
}

export function parseFilter(text: string, fields: FieldMap): FilterNode | null {
  if (!text.trim()) return null;
  return new FilterParser(tokenize(text), fields).parse();
}

function toExpression(eb: AnyExpressionBuilder, node: FilterNode): Expression<SqlBool> {
  switch (node.kind) {
    case 'and':
      return eb.and(node.items.map((item) => toExpression(eb, item)));
    case 'or':
      return eb.or(node.items.map((item) => toExpression(eb, item)));
    case 'not':
      return eb.not(toExpression(eb, node.item));
    case 'through': {
      const rows = eb.selectFrom(node.table).select(node.key).where(() => toExpression(eb, node.item));
      return eb(eb.ref(node.column), node.negate ? 'not in' : 'in', rows);
    }
    case 'cmp': {
      const ref = eb.ref(node.column);
      if ((node.op === 'in' || node.op === 'not in') && Array.isArray(node.value) && node.value.length === 0) {
        return node.op === 'in' ? sql<SqlBool>`false` : sql<SqlBool>`true`;
      }
      return eb(ref, node.op, node.value as never);
    }
  }
}

export interface OrderItem {
  column: string;
  direction: 'asc' | 'desc';
}

export function parseOrder(text: string | null | undefined, fields: FieldMap): OrderItem[] {
  if (!text?.trim()) return [];
  return text.split(',').map((part) => {
    const item = part.trim();
    const m = /^([+-]?)([A-Za-z_][\w.]*)(?:\s+(asc|desc))?$/i.exec(item);
    if (!m) throw badRequest(`order: cannot read "${item}"; use +field, -field or "field asc|desc".`);
    const field = fields[m[2]];
    if (!field) throw badRequest(`order: unknown field ${m[2]}; known fields: ${Object.keys(fields).join(', ')}`);
    if (field.through) throw badRequest(`order: cannot order by ${m[2]}.`);
    const descending = m[1] === '-' || m[3]?.toLowerCase() === 'desc';
    return { column: field.column, direction: descending ? 'desc' : 'asc' };
  });
}

/**
 * Adds a list's filter and order to a query its caller runs itself (lists whose rows pass an access check in memory
 * before they are paged); the caller's own order follows as the tiebreak.
 */
export function filterAndOrder<Q extends AnySelect>(query: Q, args: Pick<ListArgs, 'filter' | 'order'>, fields: FieldMap): Q {
  const filter = args.filter ? parseFilter(args.filter, fields) : null;
  let out: AnySelect = filter ? query.where((eb) => toExpression(eb, filter)) : query;
  for (const o of parseOrder(args.order, fields)) out = out.orderBy(o.column, o.direction);
  return out as Q;
}

/** Checks limit (0–100) and offset (≥ 0); limit defaults to the maximum, offset to 0. */
export function pageWindow(args: ListArgs): { limit: number; offset: number } {
  const limit = args.limit ?? MAX_LIMIT;
  const offset = args.offset ?? 0;
  if (limit < 0 || limit > MAX_LIMIT) throw badRequest(`limit must be between 0 and ${MAX_LIMIT}.`);
  if (offset < 0) throw badRequest('offset must not be negative.');
  return { limit, offset };
}

/**
 * Runs a paginated list: `base` holds the FROM and scope conditions; `select` adds the columns (and the joins they
 * need). The filter and order are checked before any query runs; `tiebreak` keeps pages stable. When `tiebreak` is
 * the listed table's unique key (`keyed`), the page's keys are read first and then only those rows with their
 * columns, instead of joining every row in scope before cutting the page (10,000 ended sessions:
 * docs/query-plans.md). The keys are passed as values rather than a subquery, whose plan went wrong on tables
 * without fresh statistics.
 *
 * `joins` are left joins to at most one row each (a session's owner and project), which `select` adds for the
 * rows: the count and the keys get them only when the filter or order names a column of theirs. PostgreSQL drops
 * such a join from a plan, but the join's key column still counts as read, and that alone turned the count's
 * index-only scan into an index scan through the table (the finished tab's count of 10,000 on PGlite: 10.4 → 3.3 ms,
 * vacuumed: docs/query-plans.md).
 */
export async function runList<T>(
  base: AnySelect,
  args: ListArgs,
  fields: FieldMap,
  tiebreak: string,
  select: (qb: AnySelect) => AnySelect<T>,
  { keyed = false, joins }: { keyed?: boolean; joins?: (qb: AnySelect) => AnySelect } = {},
): Promise<{ items: T[]; total_count: number }> {
  const { limit, offset } = pageWindow(args);
  const filter = args.filter ? parseFilter(args.filter, fields) : null;
  const order = parseOrder(args.order, fields);
  const filtered = (qb: AnySelect) => (filter ? qb.where((eb) => toExpression(eb, filter)) : qb);
  const ordered = (qb: AnySelect) => {
    for (const o of order) qb = qb.orderBy(o.column, o.direction);
    return qb.orderBy(tiebreak);
  };
  const named = [...(filter ? columnsOf(filter) : []), ...order.map((o) => o.column)];
  const scoped = filtered(joins && named.some((column) => !ofTable(column, tiebreak)) ? joins(base) : base);
  const counted = await scoped.select((eb) => eb.fn.countAll().as('count')).executeTakeFirst();
  const total_count = Number((counted as { count?: unknown } | undefined)?.count ?? 0);
  if (limit === 0) return { items: [], total_count };
  if (!keyed) return { items: await ordered(select(filtered(base))).limit(limit).offset(offset).execute(), total_count };
  const keys = (await ordered(scoped.select(`${tiebreak} as page_key`)).limit(limit).offset(offset).execute()).map((r) => (r as { page_key: unknown }).page_key);
  return { items: keys.length ? await ordered(select(base.where(tiebreak, 'in', keys))).execute() : [], total_count };
}

/** The columns a filter compares in the list's own query (a `through` field's other table is its own subquery). */
function columnsOf(node: FilterNode): string[] {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.items.flatMap(columnsOf);
    case 'not':
      return columnsOf(node.item);
    default:
      return [node.column];
  }
}

/** Whether `column` belongs to the same table as `key` (by alias; unqualified names are the listed table's). */
function ofTable(column: string, key: string): boolean {
  const alias = (name: string) => (name.includes('.') ? name.slice(0, name.indexOf('.')) : '');
  return !column.includes('.') || alias(column) === alias(key);
}

export const LIST_ARGS_SDL = 'limit: Int = 100, offset: Int = 0, filter: String, order: String';
