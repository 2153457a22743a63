'use client';
/**
 * A list whose rows draw themselves (links, chips, menus per row), in a card: the manager's problem when the list
 * could not be read, `empty` when there is nothing, placeholder rows while a slow list loads, and otherwise the
 * table with `head` and what `children` makes of the rows. DataTable serves lists declared as columns; this one
 * serves lists whose row is a component of its own.
 */
import type { ReactNode } from 'react';
import Card from '@mui/material/Card';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import { ProblemAlert, useDelayed } from './feedback';
import { SkeletonRows } from './tableParts';

export interface RowsTableProps<T> {
  label: string;
  rows: T[] | undefined;
  error: unknown;
  isLoading: boolean;
  /** Shown instead of the table when there is nothing to list (default: no rows). */
  isEmpty?: boolean;
  empty: ReactNode;
  /** The header cells. */
  head: ReactNode;
  colSpan: number;
  size?: 'small' | 'medium';
  /** Under the table, inside the card (a pager). */
  footer?: ReactNode;
  children: (rows: T[]) => ReactNode;
}

export function RowsTable<T>({ label, rows, error, isLoading, isEmpty, empty, head, colSpan, size, footer, children }: RowsTableProps<T>) {
  const showSkeleton = useDelayed(isLoading && !rows);
  if (error && !rows) return <ProblemAlert error={error} />;
  if (rows && (isEmpty ?? rows.length === 0)) return <>{empty}</>;
  if (!rows && !showSkeleton) return null;
  return (
    <TableContainer component={Card} variant="outlined">
      <Table size={size} aria-label={label}>
        <TableHead>
          <TableRow>{head}</TableRow>
        </TableHead>
        <TableBody>{rows ? children(rows) : <SkeletonRows colSpan={colSpan} />}</TableBody>
      </Table>
      {footer}
    </TableContainer>
  );
}
