/** Client-side sorting for DataTable, free of React so it can be unit-tested. */

export interface SortState {
  key: string;
  direction: 'asc' | 'desc';
}

/** What a sortable column gives: the value rows compare by. */
export interface Sortable<T> {
  key: string;
  sortValue?: (row: T) => string | number | null;
}

function compare(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: 'base' });
}

/** Rows sorted by a column's `sortValue`; nulls last whichever the direction. */
export function sortRows<T>(rows: T[], columns: Sortable<T>[], sort: SortState | null): T[] {
  const column = sort && columns.find((c) => c.key === sort.key);
  if (!sort || !column?.sortValue) return rows;
  const factor = sort.direction === 'asc' ? 1 : -1;
  const value = column.sortValue;
  return [...rows].sort((a, b) => {
    const va = value(a);
    const vb = value(b);
    if (va === null || vb === null) return compare(va, vb);
    return factor * compare(va, vb);
  });
}

