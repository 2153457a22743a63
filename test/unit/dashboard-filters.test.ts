import { describe, expect, it } from 'vitest';
import { NO_FILTERS, sessionFilter, sessionOrder } from '../../components/admin/sessions/sessionFilter';
import { nameFilter } from '../../components/api/listFilter';
import { sortRows, type Sortable } from '../../components/ui/sortRows';

describe('all-sessions filters', () => {
  it('sends no filter when every box is empty', () => {
    expect(sessionFilter(NO_FILTERS)).toBeNull();
    expect(sessionFilter({ ...NO_FILTERS, user: '   ' })).toBeNull();
  });

  it('ands the boxes: text anywhere (any case), the agent exactly', () => {
    expect(sessionFilter({ ...NO_FILTERS, user: 'ada', project: 'research', agent: 'i-local', image: 'python' })).toBe(
      'user_email ilike "%ada%" & group_name ilike "%research%" & agent_id == "i-local" & image ilike "%python%"',
    );
  });

  it('quotes what is typed and takes wildcards literally', () => {
    expect(sessionFilter({ ...NO_FILTERS, name: 'a"b\\c' })).toBe('name ilike "%a\\"b\\\\\\\\c%"');
    expect(sessionFilter({ ...NO_FILTERS, name: '50%_done' })).toBe('name ilike "%50\\\\%\\\\_done%"');
    expect(nameFilter(' x% ')).toBe('name ilike "%x\\\\%%"');
    expect(nameFilter('')).toBeNull();
  });

  it('orders newest first unless a column is chosen', () => {
    expect(sessionOrder(null)).toBe('-created_at');
    expect(sessionOrder({ key: 'name', direction: 'asc' })).toBe('+name');
    expect(sessionOrder({ key: 'user_email', direction: 'desc' })).toBe('-user_email');
  });
});

describe('client-side table sorting', () => {
  const columns: Sortable<{ n: string; v: number | null }>[] = [
    { key: 'n', sortValue: (r) => r.n },
    { key: 'v', sortValue: (r) => r.v },
  ];
  const rows = [
    { n: 'item10', v: 3 },
    { n: 'item9', v: null },
    { n: 'Item2', v: 1 },
  ];

  it('sorts text naturally and case-insensitively, numbers numerically, nulls last either way', () => {
    expect(sortRows(rows, columns, { key: 'n', direction: 'asc' }).map((r) => r.n)).toEqual(['Item2', 'item9', 'item10']);
    expect(sortRows(rows, columns, { key: 'v', direction: 'asc' }).map((r) => r.v)).toEqual([1, 3, null]);
    expect(sortRows(rows, columns, { key: 'v', direction: 'desc' }).map((r) => r.v)).toEqual([3, 1, null]);
    expect(sortRows(rows, columns, null)).toBe(rows);
  });
});
