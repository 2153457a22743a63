'use client';
/**
 * The folders page: the folders you own or that are shared with you (rename, delete, leave), invitations to
 * accept, the ones you sent and may still cancel, and a new folder.
 */
import { useState } from 'react';
import NextLink from 'next/link';
import { useRouter } from 'next/navigation';
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { EmptyState } from '@/components/ui/feedback';
import { RowsTable } from '@/components/ui/RowsTable';
import { useToast } from '@/components/ui/useToast';
import { DeleteIcon, EditIcon, FolderIcon, LogoutIcon } from '@/components/frame/icons';
import { formatBytes, relativeTime } from '@/components/sessions/model';
import { useNow } from '@/components/sessions/common';
import { CreateFolderDialog } from './CreateFolderDialog';
import { FolderActionDialogs, type FolderAction } from './FolderActionDialogs';
import { Invitations, SentInvitations } from './Invitations';
import { isTrashed, PERMISSION_LABELS, USAGE_LABELS, useFolders, type FolderSummary } from './useFolders';
import { ActionsHeaderCell, RowAction, TablePager } from '@/components/ui/tableParts';
import { useDialogTarget } from '@/components/ui/useDialogTarget';
import { ListPage } from '@/components/ui/ListPage';
import { usePaging } from '@/components/ui/usePaging';

/** Pages of the folder list: with hundreds of folders, rendering every row took seconds (bench/pages.mjs). */
const PAGE_SIZES = [25, 50, 100];

function FolderRow({ folder, now, onAction }: { folder: FolderSummary; now: number | null; onAction: (action: FolderAction) => void }) {
  // The owner renames and deletes; someone a user folder was shared with may leave it (project folders are left
  // through the project, not here).
  const leavable = !folder.is_owner && folder.type === 'user';
  return (
    <TableRow hover data-testid="folder-row" data-folder={folder.name}>
      <TableCell>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <FolderIcon fontSize="small" color="primary" />
          <Link component={NextLink} href={`/folders/${folder.id}`} underline="hover" sx={{ fontWeight: 600 }}>
            {folder.name}
          </Link>
          {folder.status !== 'ready' && <Chip size="small" label={folder.status} color={folder.status === 'cloning' ? 'info' : 'default'} />}
        </Stack>
      </TableCell>
      <TableCell>
        {folder.is_owner ? (
          <Typography variant="body2">You</Typography>
        ) : (
          <Typography variant="body2" color="text.secondary">
            {folder.type === 'group' ? `Project ${folder.group_name ?? ''}` : `Shared by ${folder.user_email ?? 'another user'}`}
          </Typography>
        )}
      </TableCell>
      <TableCell>
        <Chip size="small" variant="outlined" label={PERMISSION_LABELS[folder.permission] ?? folder.permission} data-testid="folder-permission" />
      </TableCell>
      <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>{USAGE_LABELS[folder.usage_mode] ?? folder.usage_mode}</TableCell>
      <TableCell align="right" sx={{ display: { xs: 'none', sm: 'table-cell' } }}>
        {folder.cur_size === null ? '—' : formatBytes(folder.cur_size)}
      </TableCell>
      {/* In the browser's zone, once mounted: the server renders the rows too (the page's first view). */}
      <TableCell sx={{ whiteSpace: 'nowrap', display: { xs: 'none', md: 'table-cell' } }} title={now === null ? undefined : new Date(folder.created_at).toLocaleString()}>
        {now === null ? '' : relativeTime(folder.created_at, now)}
      </TableCell>
      <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
        {folder.is_owner && (
          <>
            <RowAction size="small" title="Rename" label={`Rename ${folder.name}`} icon={<EditIcon fontSize="small" />} onClick={() => onAction({ kind: 'rename', folder })} />
            <RowAction size="small" title="Delete" label={`Delete ${folder.name}`} icon={<DeleteIcon fontSize="small" />} onClick={() => onAction({ kind: 'delete', folder })} />
          </>
        )}
        {leavable && <RowAction size="small" title="Leave" label={`Leave ${folder.name}`} icon={<LogoutIcon fontSize="small" />} onClick={() => onAction({ kind: 'leave', folder })} />}
      </TableCell>
    </TableRow>
  );
}

export function FolderList() {
  const router = useRouter();
  const { data, error, isLoading, mutate } = useFolders();
  const now = useNow();
  const creating = useDialogTarget();
  const [action, setAction] = useState<FolderAction>(null);
  const [toast, showToast] = useToast();
  const paging = usePaging(PAGE_SIZES);
  const folders = (data ?? []).filter((f) => !isTrashed(f)).sort((a, b) => Number(b.is_owner) - Number(a.is_owner) || a.name.localeCompare(b.name));
  // A page past the end (folders deleted meanwhile) shows the last one.
  const shownPage = Math.min(paging.page, Math.max(0, Math.ceil(folders.length / paging.pageSize) - 1));
  const pageRows = folders.slice(shownPage * paging.pageSize, (shownPage + 1) * paging.pageSize);

  return (
    <ListPage title="Folders" description="Storage that outlives sessions: mount folders into sessions, share them, upload and download files." newLabel="New folder" onNew={() => creating.open(true)}>
      {(newButton) => (
        <>
          <Invitations onAccepted={() => void mutate()} />
          <SentInvitations />
          <RowsTable
            label="Folders"
            rows={data ? pageRows : undefined}
            error={error}
            isLoading={isLoading}
            colSpan={7}
            empty={
              <Card variant="outlined">
                <EmptyState title="No folders yet" icon={<FolderIcon color="action" sx={{ fontSize: 48 }} />} action={newButton}>
                  A folder keeps your data, code and models between sessions. Create one, upload files into it, and mount it when you start a session.
                </EmptyState>
              </Card>
            }
            head={
              <>
                <TableCell>Name</TableCell>
                <TableCell>Owner</TableCell>
                <TableCell>Permission</TableCell>
                <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>Usage</TableCell>
                <TableCell align="right" sx={{ display: { xs: 'none', sm: 'table-cell' } }}>
                  Size
                </TableCell>
                <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>Created</TableCell>
                <ActionsHeaderCell />
              </>
            }
            footer={folders.length > PAGE_SIZES[0] && <TablePager count={folders.length} {...paging.pager} page={shownPage} />}
          >
            {(rows) => rows.map((f) => <FolderRow key={f.id} folder={f} now={now} onAction={setAction} />)}
          </RowsTable>
          <CreateFolderDialog
            open={creating.isOpen}
            onClose={creating.close}
            onCreated={creating.done((folder) => {
              void mutate();
              router.push(`/folders/${folder.id}`);
            })}
          />
          <FolderActionDialogs
            action={action}
            onDone={async (message) => {
              await mutate();
              showToast(message);
            }}
            onClose={() => setAction(null)}
          />
          {toast}
        </>
      )}
    </ListPage>
  );
}
