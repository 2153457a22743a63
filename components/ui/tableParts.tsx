'use client';
/**
 * Pieces every list table of the dashboard repeats: the row's icon actions, the hidden "Actions" column header,
 * placeholder rows while the list loads, the pager, and the error / loading / empty states of a card that holds
 * a list.
 */
import type { ReactNode } from 'react';
import dynamic from 'next/dynamic';
import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import Skeleton from '@mui/material/Skeleton';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import { Loading, ProblemAlert, VisuallyHidden } from './feedback';
import { useHydrated } from './useHydrated';

/** An IconButton's box around a small icon: its padding (5 px small, 8 px medium) on both sides of 20 px. */
const ROW_ACTION_PX = { small: 30, medium: 36 };

/**
 * An icon button with a tooltip (what it does) and an accessible name (what it does to which row). Drawn once the
 * page runs in the browser, in a box of its size until then: a button does nothing before hydration, and the
 * server rendering every row's buttons and tooltips put the folders page's first byte ~50 ms later on the 2-core
 * bench machine (emotion serializing each one's styles; docs/architecture.md, "Pages at scale").
 */
export function RowAction({ title, label, icon, onClick, size }: { title: string; label: string; icon: ReactNode; onClick: () => void; size?: 'small' }) {
  const hydrated = useHydrated();
  if (!hydrated) {
    const px = ROW_ACTION_PX[size ?? 'medium'];
    return <span aria-hidden style={{ display: 'inline-block', width: px, height: px, verticalAlign: 'middle' }} />;
  }
  return (
    <Tooltip title={title}>
      <IconButton size={size} aria-label={label} onClick={onClick}>
        {icon}
      </IconButton>
    </Tooltip>
  );
}

/** The header of the actions column: no visible title, but screen readers name the column. */
export function ActionsHeaderCell() {
  return (
    <TableCell align="right">
      <VisuallyHidden>Actions</VisuallyHidden>
    </TableCell>
  );
}

/** Three placeholder rows spanning the table while its rows load. */
export function SkeletonRows({ colSpan }: { colSpan: number }) {
  return (
    <>
      {[0, 1, 2].map((i) => (
        <TableRow key={i}>
          <TableCell colSpan={colSpan}>
            <Skeleton />
          </TableCell>
        </TableRow>
      ))}
    </>
  );
}

// MUI's TablePagination builds an Intl.NumberFormat as its module loads, and a process's first Intl formatter reads
// ICU's locale data and code out of Node's binary: ~4 MiB that then stay resident in Berth's one process. The
// server renders every table before its data, so never a pager: the module is loaded in the browser only, and
// fetched there as soon as this one loads, long before a list's data arrives (docs/architecture.md, "Memory").
// (next/dynamic's props type drops the `component` prop of MUI's overloaded component type, hence the cast.)
const TablePagination = dynamic(() => import('@mui/material/TablePagination'), { ssr: false }) as typeof import('@mui/material/TablePagination').default;
if (typeof window !== 'undefined') void import('@mui/material/TablePagination');

/** The pager under a table; a new page size starts again at the first page. */
export function TablePager({
  count,
  page,
  onPage,
  pageSize,
  onPageSize,
  pageSizes,
}: {
  count: number;
  page: number;
  onPage: (page: number) => void;
  pageSize: number;
  onPageSize: (size: number) => void;
  pageSizes: number[];
}) {
  return (
    <TablePagination
      component="div"
      count={count}
      page={page}
      onPageChange={(_e, next) => onPage(next)}
      rowsPerPage={pageSize}
      rowsPerPageOptions={pageSizes}
      onRowsPerPageChange={(e) => {
        onPageSize(Number(e.target.value));
        onPage(0);
      }}
    />
  );
}

/**
 * The inside of a card that lists something: the error when loading failed, a placeholder until `data` arrives,
 * `empty` when `isEmpty(data)`, and otherwise what `children` makes of the data.
 */
export function ListCardContent<T>({
  error,
  data,
  loadingRows,
  isEmpty,
  empty,
  children,
}: {
  error: unknown;
  data: T | undefined;
  loadingRows: number;
  isEmpty: (data: T) => boolean;
  empty: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (error) return <ProblemAlert error={error} sx={{ m: 2 }} />;
  if (data === undefined)
    return (
      <Box sx={{ p: 2 }}>
        <Loading rows={loadingRows} />
      </Box>
    );
  return <>{isEmpty(data) ? empty : children(data)}</>;
}
