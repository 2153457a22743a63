'use client';
/**
 * A list in a card, declared as columns: sortable headers, a pager, optional row selection (for bulk actions) and
 * the card's error / loading / empty states. Sorting and paging are either done here over the rows given
 * (`rows` holds every row) or by the server (`total` given: `rows` is the current page, and `sort` / `page` are
 * controlled by the caller, who asks the server for them).
 */
import { useMemo, useState, type ReactNode } from 'react';
import type { SxProps, Theme } from '@mui/material/styles';
import Card from '@mui/material/Card';
import Checkbox from '@mui/material/Checkbox';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TableSortLabel from '@mui/material/TableSortLabel';
import { sortRows, type SortState } from './sortRows';
import { VisuallyHidden } from './feedback';
import { ListCardContent, TablePager } from './tableParts';

export type { SortState };

export interface Column<T> {
  key: string;
  label: ReactNode;
  render: (row: T) => ReactNode;
  /** Makes the column sortable: the value rows are compared by (client-side sorting). */
  sortValue?: (row: T) => string | number | null;
  /** Sortable on the server (with `total`): the header toggles `sort` without a `sortValue`. */
  serverSortable?: boolean;
  align?: 'left' | 'right';
  /** Hidden on narrow screens (below md). */
  wide?: boolean;
  /** Hidden below this breakpoint (a column less needed than `wide` ones hides on wider screens too). */
  hideBelow?: 'sm' | 'md' | 'lg' | 'xl';
  /** Extra style of the column's body cells (monospace, no wrapping). */
  cellSx?: SxProps<Theme>;
  /** Extra style of the column's header cell (a width). */
  headSx?: SxProps<Theme>;
}

/** Both styles, for one `sx`. */
function joinSx(a: SxProps<Theme> | undefined, b: SxProps<Theme> | undefined): SxProps<Theme> {
  return [...(Array.isArray(a) ? a : [a ?? {}]), ...(Array.isArray(b) ? b : [b ?? {}])] as SxProps<Theme>;
}

/** The style that hides a column below its breakpoint, or undefined for a column always shown. */
function hiddenSx(column: { wide?: boolean; hideBelow?: string }): SxProps<Theme> | undefined {
  const below = column.hideBelow ?? (column.wide ? 'md' : undefined);
  return below ? { display: { xs: 'none', [below]: 'table-cell' } } : undefined;
}

export interface DataTableProps<T> {
  label: string;
  testId?: string;
  columns: Column<T>[];
  rowKey: (row: T) => string;
  /** What a row is called (its selection checkbox reads "Select <name>"); the key when left out. */
  rowName?: (row: T) => string;
  rows: T[] | undefined;
  error: unknown;
  empty: ReactNode;
  /** Server paging: the number of rows on the server; `page`/`pageSize`/`sort` are then controlled. */
  total?: number;
  page?: number;
  onPage?: (page: number) => void;
  pageSize?: number;
  onPageSize?: (size: number) => void;
  sort?: SortState | null;
  onSort?: (sort: SortState) => void;
  pageSizes?: number[];
  /** Row selection for bulk actions: the selected keys, controlled by the caller. */
  selected?: string[];
  onSelect?: (keys: string[]) => void;
  /** Content above the table inside the card (filters, bulk actions). */
  toolbar?: ReactNode;
  /** The test id of each body row; "data-row" when left out. */
  rowTestId?: string;
  /** Placeholder rows while the rows load. */
  loadingRows?: number;
}

export function DataTable<T>(props: DataTableProps<T>) {
  const { label, testId, columns, rowKey, rowName = rowKey, rows, error, empty, total, pageSizes = [10, 25, 50, 100], selected, onSelect, toolbar, rowTestId = 'data-row', loadingRows = 4 } = props;
  const server = total !== undefined;
  const [ownSort, setOwnSort] = useState<SortState | null>(null);
  const [ownPage, setOwnPage] = useState(0);
  const [ownPageSize, setOwnPageSize] = useState(pageSizes[1] ?? pageSizes[0]);
  const sort = server ? (props.sort ?? null) : ownSort;
  const page = server ? (props.page ?? 0) : ownPage;
  const pageSize = server ? (props.pageSize ?? pageSizes[0]) : ownPageSize;
  const setPage = server ? (props.onPage ?? (() => {})) : setOwnPage;
  const setPageSize = server ? (props.onPageSize ?? (() => {})) : setOwnPageSize;

  const shown = useMemo(() => {
    if (!rows || server) return rows;
    return sortRows(rows, columns, sort).slice(page * pageSize, (page + 1) * pageSize);
  }, [rows, server, columns, sort, page, pageSize]);
  const count = server ? total : (rows?.length ?? 0);

  function toggleSort(key: string) {
    const next: SortState = sort?.key === key && sort.direction === 'asc' ? { key, direction: 'desc' } : { key, direction: 'asc' };
    if (server) props.onSort?.(next);
    else setOwnSort(next);
    setPage(0);
  }

  const keys = shown?.map(rowKey) ?? [];
  const allSelected = selected !== undefined && keys.length > 0 && keys.every((k) => selected.includes(k));

  return (
    <Card variant="outlined" data-testid={testId}>
      {toolbar}
      <ListCardContent error={error} data={shown} loadingRows={loadingRows} isEmpty={(r) => r.length === 0 && count === 0} empty={empty}>
        {(pageRows) => (
          <>
            <TableContainer>
              <Table size="small" aria-label={label}>
                <TableHead>
                  <TableRow>
                    {onSelect && (
                      <TableCell padding="checkbox">
                        <Checkbox
                          checked={allSelected}
                          indeterminate={!allSelected && keys.some((k) => selected?.includes(k))}
                          onChange={() => onSelect(allSelected ? [] : keys)}
                          slotProps={{ input: { 'aria-label': 'Select every row on this page' } }}
                        />
                      </TableCell>
                    )}
                    {columns.map((c) => (
                      <TableCell key={c.key} align={c.align} sx={joinSx(hiddenSx(c), c.headSx)} sortDirection={sort?.key === c.key ? sort.direction : false}>
                        {c.sortValue || c.serverSortable ? (
                          <TableSortLabel active={sort?.key === c.key} direction={sort?.key === c.key ? sort.direction : 'asc'} onClick={() => toggleSort(c.key)}>
                            {c.label}
                          </TableSortLabel>
                        ) : (
                          c.label
                        )}
                      </TableCell>
                    ))}
                  </TableRow>
                </TableHead>
                <TableBody>
                  {pageRows.map((row) => {
                    const key = rowKey(row);
                    return (
                      <TableRow key={key} hover data-testid={rowTestId}>
                        {onSelect && (
                          <TableCell padding="checkbox">
                            <Checkbox
                              checked={selected?.includes(key) ?? false}
                              onChange={(e) => onSelect(e.target.checked ? [...(selected ?? []), key] : (selected ?? []).filter((k) => k !== key))}
                              slotProps={{ input: { 'aria-label': `Select ${rowName(row)}` } }}
                            />
                          </TableCell>
                        )}
                        {columns.map((c) => (
                          <TableCell key={c.key} align={c.align} sx={joinSx(hiddenSx(c), c.cellSx)}>
                            {c.render(row)}
                          </TableCell>
                        ))}
                      </TableRow>
                    );
                  })}
                </TableBody>
              </Table>
            </TableContainer>
            {count > pageSizes[0] && <TablePager count={count} page={page} onPage={setPage} pageSize={pageSize} onPageSize={setPageSize} pageSizes={pageSizes} />}
          </>
        )}
      </ListCardContent>
    </Card>
  );
}

/** The last column of a list whose rows have actions (RowAction buttons): unnamed on screen, "Actions" to screen readers. */
export function actionsColumn<T>(render: (row: T) => ReactNode): Column<T> {
  return { key: 'actions', label: <VisuallyHidden>Actions</VisuallyHidden>, align: 'right', cellSx: { whiteSpace: 'nowrap' }, render };
}
