'use client';
/**
 * The page a server-paged list shows and its size, kept in one state, and `pager`: the props `DataTable` and
 * `TablePager` take for them. One hook instead of two states and five props written out by every paged view.
 */
import { useMemo, useState } from 'react';

export interface Paging {
  page: number;
  pageSize: number;
  setPage: (page: number) => void;
  /** Spread into `DataTable` (server paging) or `TablePager`. */
  pager: { page: number; onPage: (page: number) => void; pageSize: number; onPageSize: (size: number) => void; pageSizes: number[] };
}

/** `pageSizes[0]` is the first page size unless `initialSize` says otherwise. */
export function usePaging(pageSizes: number[], initialSize = pageSizes[0]): Paging {
  const [page, setPage] = useState(0);
  const [pageSize, setPageSize] = useState(initialSize);
  return useMemo(
    () => ({ page, pageSize, setPage, pager: { page, onPage: setPage, pageSize, onPageSize: setPageSize, pageSizes } }),
    [page, pageSize, pageSizes],
  );
}
