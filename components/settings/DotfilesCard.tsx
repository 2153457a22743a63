'use client';
/** The caller's dotfiles: the list with edit and delete, and a button to add one. */
import { useState } from 'react';
import Button from '@mui/material/Button';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { EmptyState, Loading, ProblemAlert } from '@/components/ui/feedback';
import { SectionCard } from '@/components/ui/SectionCard';
import { formatBytes } from '@/components/admin/format';
import { AddIcon, DeleteIcon, EditIcon } from '@/components/frame/icons';
import { byteLength, MAX_DOTFILES, MAX_DOTFILES_BYTES, symbolicPermission } from './dotfile-rules';
import { DotfileDialog } from './DotfileDialog';
import { deleteDotfile, useDotfiles, type Dotfile } from './useSettings';
import { ActionsHeaderCell, RowAction } from '@/components/ui/tableParts';
import { MONO } from '@/components/ui/CodeField';


export function DotfilesCard({ onSaved }: { onSaved: (message: string) => void }) {
  const { data, error } = useDotfiles();
  const [dialog, setDialog] = useState<{ editing: Dotfile | null } | null>(null);
  const [deleting, setDeleting] = useState<Dotfile | null>(null);

  const files = data ?? [];
  const total = files.reduce((sum, f) => sum + byteLength(f.data), 0);
  const full = files.length >= MAX_DOTFILES;

  return (
    <SectionCard
      id="dotfiles"
      title="Dotfiles"
      description="Files written into /home/work of every new session, such as .bashrc, .vimrc or .gitconfig, with the permission you give them."
      actions={
        data && (
          <Tooltip title={full ? `You have the maximum of ${MAX_DOTFILES} dotfiles.` : ''}>
            <span>
              <Button variant="contained" startIcon={<AddIcon />} onClick={() => setDialog({ editing: null })} disabled={full}>
                Add dotfile
              </Button>
            </span>
          </Tooltip>
        )
      }
    >
      {error ? (
        <ProblemAlert error={error} />
      ) : !data ? (
        <Loading rows={3} />
      ) : files.length === 0 ? (
        <EmptyState
          title="No dotfiles yet"
          action={
            <Button variant="outlined" startIcon={<AddIcon />} onClick={() => setDialog({ editing: null })}>
              Add your first dotfile
            </Button>
          }
        >
          Add a .bashrc or .vimrc here and every session you start will have it.
        </EmptyState>
      ) : (
        <>
          <TableContainer>
            <Table size="small" aria-label="Dotfiles" data-testid="dotfiles">
              <TableHead>
                <TableRow>
                  <TableCell>Path</TableCell>
                  <TableCell>Permission</TableCell>
                  <TableCell align="right">Size</TableCell>
                  <ActionsHeaderCell />
                </TableRow>
              </TableHead>
              <TableBody>
                {files.map((file) => (
                  <TableRow key={file.path} hover>
                    <TableCell sx={{ fontFamily: MONO, overflowWrap: 'anywhere' }}>/home/work/{file.path}</TableCell>
                    <TableCell sx={{ fontFamily: MONO, whiteSpace: 'nowrap' }}>
                      {file.permission}
                      <Typography component="span" variant="caption" color="text.secondary" sx={{ ml: 1, fontFamily: MONO }}>
                        {symbolicPermission(file.permission)}
                      </Typography>
                    </TableCell>
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      {formatBytes(byteLength(file.data))}
                    </TableCell>
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      <RowAction title="Edit" label={`Edit ${file.path}`} icon={<EditIcon fontSize="small" />} onClick={() => setDialog({ editing: file })} />
                      <RowAction title="Delete" label={`Delete ${file.path}`} icon={<DeleteIcon fontSize="small" />} onClick={() => setDeleting(file)} />
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
          <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1.5 }}>
            {files.length} of {MAX_DOTFILES} dotfiles · {formatBytes(total)} of {formatBytes(MAX_DOTFILES_BYTES)}
          </Typography>
        </>
      )}
      <DotfileDialog
        open={dialog !== null}
        editing={dialog?.editing ?? null}
        existingPaths={files.map((f) => f.path)}
        onClose={() => setDialog(null)}
        onSaved={(path) => {
          onSaved(dialog?.editing ? `${path} is saved.` : `${path} is added.`);
          setDialog(null);
        }}
      />
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.path ?? ''}?`}
        confirmLabel="Delete"
        danger
        onConfirm={() => deleteDotfile(deleting!.path).then(() => onSaved(`${deleting!.path} is deleted.`))}
        onClose={() => setDeleting(null)}
      >
        <Typography variant="body2">New sessions will no longer get this file. Sessions already running keep their copy.</Typography>
      </ConfirmDialog>
    </SectionCard>
  );
}
