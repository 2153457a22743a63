'use client';
/**
 * One folder: its files with breadcrumbs, new directories, rename, move and delete (several at once), resumable
 * uploads with progress and speed, downloads of files and of directories as zips, sharing and cloning.
 */
import { useRef, useState, type DragEvent } from 'react';
import NextLink from 'next/link';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Checkbox from '@mui/material/Checkbox';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Toolbar from '@mui/material/Toolbar';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { EmptyState, ProblemAlert, useDelayed } from '@/components/ui/feedback';
import { useToast } from '@/components/ui/useToast';
import {
  ArrowBackIcon,
  CloseIcon,
  ContentCopyIcon,
  CreateFolderIcon,
  DeleteIcon,
  DownloadIcon,
  DriveFileMoveIcon,
  EditIcon,
  PersonAddIcon,
  RefreshIcon,
  UploadIcon,
} from '@/components/frame/icons';
import { formatBytes } from '@/components/sessions/model';
import { CloneDialog } from './CloneDialog';
import { TextDialog } from './FileDialogs';
import { ShareDialog } from './ShareDialog';
import {
  deleteEntries,
  downloadEntry,
  joinPath,
  makeDirectory,
  moveEntry,
  PERMISSION_LABELS,
  renameEntry,
  uploadFile,
  useFolder,
  useFolderFiles,
  USAGE_LABELS,
  type FileEntry,
  type UploadProgress,
} from './useFolders';
import { ActionsHeaderCell, RowAction, SkeletonRows } from '@/components/ui/tableParts';
import { FileNameCell, PathBreadcrumbs } from './fileListing';

type Dialog = { kind: 'mkdir' } | { kind: 'rename'; entry: FileEntry } | { kind: 'move' } | { kind: 'delete' } | { kind: 'share' } | { kind: 'clone' } | null;

function UploadPanel({ uploads, done, onCancel, onDismiss }: { uploads: UploadProgress[]; done: boolean; onCancel: () => void; onDismiss: () => void }) {
  const sent = uploads.reduce((n, u) => n + u.sent, 0);
  const total = uploads.reduce((n, u) => n + u.total, 0);
  const percent = total > 0 ? Math.floor((sent / total) * 100) : 0;
  const speed = uploads.reduce((n, u) => n + (u.sent < u.total ? u.speed : 0), 0);
  const current = uploads.find((u) => u.sent < u.total) ?? uploads[uploads.length - 1];
  return (
    <Card variant="outlined" sx={{ p: 2 }} data-testid="upload-progress" data-percent={percent} data-done={done ? 'yes' : 'no'} role="status">
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
        <Box sx={{ flexGrow: 1, minWidth: 0 }}>
          <Stack direction="row" spacing={1} sx={{ justifyContent: 'space-between', mb: 0.5 }}>
            <Typography variant="body2" noWrap>
              {done ? 'Uploaded' : 'Uploading'} {uploads.length === 1 ? current.name : done ? `${uploads.length} files` : `${uploads.length} files (${current.name})`}
            </Typography>
            <Typography variant="body2" color="text.secondary" sx={{ whiteSpace: 'nowrap' }} data-testid="upload-figures">
              {percent}% · {formatBytes(sent)} of {formatBytes(total)}
              {speed > 0 ? ` · ${formatBytes(speed)}/s` : ''}
            </Typography>
          </Stack>
          <LinearProgress variant="determinate" value={percent} aria-label="Upload progress" color={done ? 'success' : 'primary'} />
        </Box>
        <Tooltip title={done ? 'Dismiss' : 'Cancel upload'}>
          <IconButton onClick={done ? onDismiss : onCancel} aria-label={done ? 'Dismiss' : 'Cancel upload'} size="small">
            <CloseIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      </Stack>
    </Card>
  );
}

export function FolderBrowser({ folderId }: { folderId: string }) {
  const folder = useFolder(folderId);
  const [dir, setDir] = useState('');
  const files = useFolderFiles(folderId, dir);
  const showSkeleton = useDelayed(files.isLoading && !files.data);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [dialog, setDialog] = useState<Dialog>(null);
  const [uploads, setUploads] = useState<UploadProgress[] | null>(null);
  const [uploading, setUploading] = useState(false);
  const [actionError, setActionError] = useState<unknown>(null);
  const [dragging, setDragging] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const [toast, showToast] = useToast();

  const info = folder.data;
  const entries = [...(files.data?.items ?? [])].sort((a, b) => Number(b.type === 'DIRECTORY') - Number(a.type === 'DIRECTORY') || a.name.localeCompare(b.name));
  const selectedNames = entries.filter((e) => selected.has(e.name)).map((e) => e.name);

  function openDir(path: string) {
    setDir(path);
    setSelected(new Set());
  }

  async function refresh() {
    await Promise.all([files.mutate(), folder.mutate()]);
  }

  async function run(action: () => Promise<unknown>, done?: string) {
    setActionError(null);
    try {
      await action();
      if (done) showToast(done);
    } catch (err) {
      setActionError(err);
    }
  }

  async function upload(list: File[]) {
    if (input.current) input.current.value = '';
    if (list.length === 0 || uploading) return;
    setActionError(null);
    setUploading(true);
    const controller = new AbortController();
    abort.current = controller;
    const progress: UploadProgress[] = list.map((f) => ({ name: f.name, sent: 0, total: f.size, speed: 0 }));
    setUploads([...progress]);
    try {
      for (const [i, file] of list.entries()) {
        await uploadFile(
          folderId,
          joinPath(dir, file.name),
          file,
          (p) => {
            progress[i] = p;
            setUploads([...progress]);
          },
          controller.signal,
        );
        progress[i] = { ...progress[i], sent: file.size, total: file.size, speed: 0 };
        setUploads([...progress]);
        await files.mutate();
      }
    } catch (err) {
      setUploads(null);
      if (!(err instanceof DOMException && err.name === 'AbortError')) setActionError(err);
    } finally {
      abort.current = null;
      setUploading(false);
      await refresh();
    }
  }

  function onDrop(event: DragEvent) {
    event.preventDefault();
    setDragging(false);
    void upload([...event.dataTransfer.files]);
  }

  function toggle(name: string) {
    const next = new Set(selected);
    if (next.has(name)) next.delete(name);
    else next.add(name);
    setSelected(next);
  }

  const writable = info ? info.permission !== 'ro' : false;
  const title = info?.name ?? '';

  return (
    <Stack spacing={2}>
      <Box>
        <Button component={NextLink} href="/folders" startIcon={<ArrowBackIcon />} size="small" sx={{ mb: 1 }}>
          Folders
        </Button>
        {folder.error && !info ? (
          <ProblemAlert error={folder.error} />
        ) : (
          <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ alignItems: { md: 'center' }, justifyContent: 'space-between' }}>
            <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', minWidth: 0 }}>
              <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }} noWrap>
                {info ? title : <Skeleton width={180} />}
              </Typography>
              {info && <Chip size="small" variant="outlined" label={PERMISSION_LABELS[info.permission]} data-testid="folder-permission" />}
              {info && <Chip size="small" variant="outlined" label={USAGE_LABELS[info.usage_mode]} sx={{ display: { xs: 'none', sm: 'inline-flex' } }} />}
              {info && info.status !== 'ready' && <Chip size="small" color="info" label={info.status} />}
            </Stack>
            <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
              {info?.is_owner && info.type === 'user' && (
                <Button variant="outlined" startIcon={<PersonAddIcon />} onClick={() => setDialog({ kind: 'share' })}>
                  Share
                </Button>
              )}
              {info?.cloneable && (
                <Button variant="outlined" startIcon={<ContentCopyIcon />} onClick={() => setDialog({ kind: 'clone' })}>
                  Clone
                </Button>
              )}
              <Button variant="outlined" startIcon={<CreateFolderIcon />} onClick={() => setDialog({ kind: 'mkdir' })} disabled={!info}>
                New directory
              </Button>
              <Button variant="contained" startIcon={<UploadIcon />} onClick={() => input.current?.click()} disabled={!info || uploading}>
                Upload
              </Button>
              <input ref={input} type="file" multiple hidden onChange={(e) => void upload([...(e.target.files ?? [])])} data-testid="folder-upload-input" />
            </Stack>
          </Stack>
        )}
        {info && (
          <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5 }}>
            {info.num_files} {info.num_files === 1 ? 'file' : 'files'} · {formatBytes(info.used_bytes)}
            {info.is_owner ? '' : ' · shared with you'}
            {writable ? '' : ' · read only'}
          </Typography>
        )}
      </Box>

      {uploads && <UploadPanel uploads={uploads} done={!uploading} onCancel={() => abort.current?.abort()} onDismiss={() => setUploads(null)} />}
      <ProblemAlert error={actionError} onClose={() => setActionError(null)} testId="folder-problem" />

      <Card
        variant="outlined"
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        sx={{ outline: dragging ? 2 : 0, outlineStyle: 'dashed', outlineColor: 'primary.main' }}
      >
        {selectedNames.length > 0 ? (
          <Toolbar variant="dense" sx={{ bgcolor: 'action.selected', gap: 1 }} data-testid="selection-toolbar">
            <Typography sx={{ flexGrow: 1 }} variant="subtitle2" component="p">
              {selectedNames.length} selected
            </Typography>
            <Button size="small" startIcon={<DriveFileMoveIcon />} onClick={() => setDialog({ kind: 'move' })}>
              Move
            </Button>
            <Button size="small" color="error" startIcon={<DeleteIcon />} onClick={() => setDialog({ kind: 'delete' })}>
              Delete
            </Button>
          </Toolbar>
        ) : (
          <Toolbar variant="dense" sx={{ gap: 1 }}>
            <PathBreadcrumbs label="Path" root={title || 'Folder'} dir={dir} onOpen={openDir} markCurrent sx={{ flexGrow: 1, minWidth: 0 }} />
            <Tooltip title="Refresh">
              <IconButton onClick={() => void refresh()} aria-label="Refresh files" size="small">
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
                      checked={entries.length > 0 && selectedNames.length === entries.length}
                      indeterminate={selectedNames.length > 0 && selectedNames.length < entries.length}
                      onChange={(e) => setSelected(new Set(e.target.checked ? entries.map((x) => x.name) : []))}
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
                {!files.data &&
                  <SkeletonRows colSpan={5} />}
                {entries.map((entry) => {
                  const isDir = entry.type === 'DIRECTORY';
                  const target = joinPath(dir, entry.name);
                  return (
                    <TableRow key={entry.name} hover selected={selected.has(entry.name)} data-testid="file-row" data-name={entry.name}>
                      <TableCell padding="checkbox">
                        <Checkbox size="small" checked={selected.has(entry.name)} onChange={() => toggle(entry.name)} slotProps={{ input: { 'aria-label': `Select ${entry.name}` } }} />
                      </TableCell>
                      <FileNameCell name={entry.name} isDir={isDir} onOpen={() => openDir(target)} />
                      <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                        {isDir ? '—' : formatBytes(entry.size)}
                      </TableCell>
                      <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' }, whiteSpace: 'nowrap' }}>{new Date(entry.modified).toLocaleString()}</TableCell>
                      <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                        <RowAction
                          size="small"
                          title={isDir ? 'Download as zip' : 'Download'}
                          label={`Download ${entry.name}`}
                          icon={<DownloadIcon fontSize="small" />}
                          onClick={() => void run(() => downloadEntry(folderId, target, isDir))}
                        />
                        <RowAction title="Rename" label={`Rename ${entry.name}`} icon={<EditIcon fontSize="small" />} onClick={() => setDialog({ kind: 'rename', entry })} size="small" />
                      </TableCell>
                    </TableRow>
                  );
                })}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      </Card>

      <TextDialog
        open={dialog?.kind === 'mkdir'}
        title="New directory"
        label="Name"
        initial=""
        confirmLabel="Create"
        description={dir ? `Inside ${dir}. Use slashes to create nested directories.` : 'Use slashes to create nested directories.'}
        onSubmit={async (name) => {
          await makeDirectory(folderId, joinPath(dir, name));
          await refresh();
        }}
        onClose={() => setDialog(null)}
      />
      <TextDialog
        open={dialog?.kind === 'rename'}
        title={dialog?.kind === 'rename' ? `Rename ${dialog.entry.name}` : 'Rename'}
        label="New name"
        initial={dialog?.kind === 'rename' ? dialog.entry.name : ''}
        confirmLabel="Rename"
        onSubmit={async (name) => {
          if (dialog?.kind !== 'rename') return;
          await renameEntry(folderId, joinPath(dir, dialog.entry.name), name);
          setSelected(new Set());
          await refresh();
        }}
        onClose={() => setDialog(null)}
      />
      <TextDialog
        open={dialog?.kind === 'move'}
        title={`Move ${selectedNames.length === 1 ? selectedNames[0] : `${selectedNames.length} items`}`}
        label="Destination directory"
        description="A path from the top of the folder; leave it as / to move to the top. Nothing is overwritten."
        initial={dir ? `/${dir}` : '/'}
        confirmLabel="Move"
        onSubmit={async (destination) => {
          const target = destination.replace(/^\/+|\/+$/g, '');
          for (const name of selectedNames) await moveEntry(folderId, joinPath(dir, name), joinPath(target, name));
          setSelected(new Set());
          await refresh();
        }}
        onClose={() => setDialog(null)}
      />
      <ConfirmDialog
        open={dialog?.kind === 'delete'}
        title={`Delete ${selectedNames.length === 1 ? selectedNames[0] : `${selectedNames.length} items`}?`}
        confirmLabel="Delete"
        danger
        onConfirm={async () => {
          await deleteEntries(
            folderId,
            selectedNames.map((name) => joinPath(dir, name)),
          );
          setSelected(new Set());
          await refresh();
          showToast(selectedNames.length === 1 ? `Deleted ${selectedNames[0]}` : `Deleted ${selectedNames.length} items`);
        }}
        onClose={() => setDialog(null)}
      >
        <Typography>
          {selectedNames.length === 1 ? 'It is' : 'They are'} removed for good, directories with everything in them. This cannot be undone.
        </Typography>
      </ConfirmDialog>
      {info && <ShareDialog open={dialog?.kind === 'share'} folderId={folderId} folderName={info.name} onClose={() => setDialog(null)} />}
      {info && <CloneDialog open={dialog?.kind === 'clone'} folder={info} onClose={() => setDialog(null)} />}
      {toast}
    </Stack>
  );
}
