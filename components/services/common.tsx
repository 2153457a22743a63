'use client';
/** What the services list and a service's page both show: whether callers need a token, and the endpoint to copy. */
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { CopyButton } from '@/components/ui/CopyButton';
import { LockIcon } from '@/components/frame/icons';

export function AccessChip({ isPublic }: { isPublic: boolean }) {
  return isPublic ? (
    <Chip size="small" variant="outlined" color="info" label="Public" data-testid="service-access" />
  ) : (
    <Chip size="small" variant="outlined" icon={<LockIcon fontSize="small" />} label="Token" data-testid="service-access" />
  );
}

export function EndpointUrl({ url }: { url: string | null }) {
  if (!url) return <Typography variant="body2" color="text.secondary">No app proxy configured</Typography>;
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center', minWidth: 0 }}>
      <Typography variant="body2" sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere', minWidth: 0 }} data-testid="service-endpoint">
        {url}
      </Typography>
      <CopyButton text={url} label="Copy URL" />
    </Stack>
  );
}
