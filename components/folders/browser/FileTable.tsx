'use client';
/**
 * The files of one directory in a card: breadcrumbs and refresh (or, while rows are selected, Move and Delete for
 * them), a table with a checkbox per row, download and rename per row, and dropping files onto the card uploads them.
 */
import { useState } from 'react';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Checkbox from '@mui/material/Checkbox';
import IconButton from '@mui/material/IconButton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Toolbar from '@mui/material/Toolbar';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { EmptyState, ProblemAlert, useDelayed } from '@/components/ui/feedback';
import { ActionsHeaderCell, RowAction, SkeletonRows } from '@/components/ui/tableParts';
import { DeleteIcon, DownloadIcon, DriveFileMoveIcon, EditIcon, RefreshIcon, UploadIcon } from '@/components/frame/icons';
import { formatBytes } from '@/components/sessions/model';
import { FileNameCell, PathBreadcrumbs } from '../fileListing';
import { joinPath, type FileEntry, type useFolderFiles } from '../useFolders';

export interface FileTableProps {
  files: ReturnType<typeof useFolderFiles>;
  /** The directory's entries, directories first. */
  entries: FileEntry[];
  dir: string;
  root: string;
  writable: boolean;
  selected: Set<string>;
  onSelect: (selected: Set<string>) => void;
  onOpenDir: (path: string) => void;
  onRefresh: () => void;
  onDropFiles: (files: File[]) => void;
  onDownload: (entry: FileEntry) => void;
  onRename: (entry: FileEntry) => void;
  onMove: () => void;
  onDelete: () => void;
}

export function FileTable({ files, entries, dir, root, writable, selected, onSelect, onOpenDir, onRefresh, onDropFiles, onDownload, onRename, onMove, onDelete }: FileTableProps) {
  const [dragging, setDragging] = useState(false);
  const showSkeleton = useDelayed(files.isLoading && !files.data);
  const selectedCount = entries.filter((e) => selected.has(e.name)).length;

  function toggle(name: string) {
    const next = new Set(selected);
    if (next.has(name)) next.delete(name);
    else next.add(name);
    onSelect(next);
  }

  return (
    <Card
      variant="outlined"
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        e.preventDefault();
        setDragging(false);
        onDropFiles([...e.dataTransfer.files]);
      }}
      sx={{ outline: dragging ? 2 : 0, outlineStyle: 'dashed', outlineColor: 'primary.main' }}
    >
      {selectedCount > 0 ? (
        <Toolbar variant="dense" sx={{ bgcolor: 'action.selected', gap: 1 }} data-testid="selection-toolbar">
          <Typography sx={{ flexGrow: 1 }} variant="subtitle2" component="p">
            {selectedCount} selected
          </Typography>
          <Button size="small" startIcon={<DriveFileMoveIcon />} onClick={onMove}>
            Move
          </Button>
          <Button size="small" color="error" startIcon={<DeleteIcon />} onClick={onDelete}>
            Delete
          </Button>
        </Toolbar>
      ) : (
        <Toolbar variant="dense" sx={{ gap: 1 }}>
          <PathBreadcrumbs label="Path" root={root} dir={dir} onOpen={onOpenDir} markCurrent sx={{ flexGrow: 1, minWidth: 0 }} />
          <Tooltip title="Refresh">
            <IconButton onClick={onRefresh} aria-label="Refresh files" size="small">
              <RefreshIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        </Toolbar>
      )}
      {files.error && !files.data && <ProblemAlert error={files.error} sx={{ m: 2 }} />}
      {files.data && entries.length === 0 && (
        <EmptyState title={dir ? 'This directory is empty' : 'This folder is empty'} icon={<UploadIcon color="action" sx={{ fontSize: 40 }} />}>
          {writable ? 'Upload files with the button above, or drop them here.' : 'Nothing has been put here yet.'}
        </EmptyState>
      )}
      {(entries.length > 0 || showSkeleton) && (
        <TableContainer>
          <Table size="small" aria-label="Files">
            <TableHead>
              <TableRow>
                <TableCell padding="checkbox">
                  <Checkbox
                    size="small"
                    checked={entries.length > 0 && selectedCount === entries.length}
                    indeterminate={selectedCount > 0 && selectedCount < entries.length}
                    onChange={(e) => onSelect(new Set(e.target.checked ? entries.map((x) => x.name) : []))}
                    slotProps={{ input: { 'aria-label': 'Select all' } }}
                  />
                </TableCell>
                <TableCell>Name</TableCell>
                <TableCell align="right">Size</TableCell>
                <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' } }}>Modified</TableCell>
                <ActionsHeaderCell />
              </TableRow>
            </TableHead>
            <TableBody>
              {!files.data && <SkeletonRows colSpan={5} />}
              {entries.map((entry) => {
                const isDir = entry.type === 'DIRECTORY';
                return (
                  <TableRow key={entry.name} hover selected={selected.has(entry.name)} data-testid="file-row" data-name={entry.name}>
                    <TableCell padding="checkbox">
                      <Checkbox size="small" checked={selected.has(entry.name)} onChange={() => toggle(entry.name)} slotProps={{ input: { 'aria-label': `Select ${entry.name}` } }} />
                    </TableCell>
                    <FileNameCell name={entry.name} isDir={isDir} onOpen={() => onOpenDir(joinPath(dir, entry.name))} />
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      {isDir ? '—' : formatBytes(entry.size)}
                    </TableCell>
                    <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' }, whiteSpace: 'nowrap' }}>{new Date(entry.modified).toLocaleString()}</TableCell>
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      <RowAction size="small" title={isDir ? 'Download as zip' : 'Download'} label={`Download ${entry.name}`} icon={<DownloadIcon fontSize="small" />} onClick={() => onDownload(entry)} />
                      <RowAction title="Rename" label={`Rename ${entry.name}`} icon={<EditIcon fontSize="small" />} onClick={() => onRename(entry)} size="small" />
                    </TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        </TableContainer>
      )}
    </Card>
  );
}
