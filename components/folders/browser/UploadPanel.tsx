'use client';
/** The progress of the uploads in flight: one bar for all files, the bytes sent, the speed, and Cancel / Dismiss. */
import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { CloseIcon } from '@/components/frame/icons';
import { formatBytes } from '@/components/sessions/model';
import type { UploadProgress } from '../useFolders';

export function UploadPanel({ uploads, done, onCancel, onDismiss }: { uploads: UploadProgress[]; done: boolean; onCancel: () => void; onDismiss: () => void }) {
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
