'use client';
/**
 * The head of a folder's page: back to the list, the folder's name with its permission, usage and status, the
 * actions that concern the whole folder (share, clone, new directory, upload) and how much it holds.
 */
import { useRef } from 'react';
import NextLink from 'next/link';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ProblemAlert } from '@/components/ui/feedback';
import { ArrowBackIcon, ContentCopyIcon, CreateFolderIcon, PersonAddIcon, UploadIcon } from '@/components/frame/icons';
import { formatBytes } from '@/components/sessions/model';
import { PERMISSION_LABELS, USAGE_LABELS, type useFolder } from '../useFolders';

export type FolderDialog = 'mkdir' | 'share' | 'clone';

export function FolderHeader({
  folder,
  uploading,
  onDialog,
  onUpload,
}: {
  folder: ReturnType<typeof useFolder>;
  uploading: boolean;
  onDialog: (dialog: FolderDialog) => void;
  onUpload: (files: File[]) => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const info = folder.data;
  const writable = info ? info.permission !== 'ro' : false;
  return (
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
              {info ? info.name : <Skeleton width={180} />}
            </Typography>
            {info && <Chip size="small" variant="outlined" label={PERMISSION_LABELS[info.permission]} data-testid="folder-permission" />}
            {info && <Chip size="small" variant="outlined" label={USAGE_LABELS[info.usage_mode]} sx={{ display: { xs: 'none', sm: 'inline-flex' } }} />}
            {info && info.status !== 'ready' && <Chip size="small" color="info" label={info.status} />}
          </Stack>
          <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
            {info?.is_owner && info.type === 'user' && (
              <Button variant="outlined" startIcon={<PersonAddIcon />} onClick={() => onDialog('share')}>
                Share
              </Button>
            )}
            {info?.cloneable && (
              <Button variant="outlined" startIcon={<ContentCopyIcon />} onClick={() => onDialog('clone')}>
                Clone
              </Button>
            )}
            <Button variant="outlined" startIcon={<CreateFolderIcon />} onClick={() => onDialog('mkdir')} disabled={!info}>
              New directory
            </Button>
            <Button variant="contained" startIcon={<UploadIcon />} onClick={() => input.current?.click()} disabled={!info || uploading}>
              Upload
            </Button>
            <input
              ref={input}
              type="file"
              multiple
              hidden
              onChange={(e) => {
                const files = [...(e.target.files ?? [])];
                // Cleared so that choosing the same file again uploads it again.
                e.target.value = '';
                onUpload(files);
              }}
              data-testid="folder-upload-input"
            />
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
  );
}
