'use client';
/** The session's console log (GET /session/{name}/logs), refreshed on demand. */
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { RefreshIcon } from '@/components/frame/icons';
import { ProblemAlert, useDelayed } from './common';
import { useSessionLogs } from './useSessions';

export function SessionLogs({ sessionId }: { sessionId: string }) {
  const { data, error, isLoading, isValidating, mutate } = useSessionLogs(sessionId, true);
  const showSkeleton = useDelayed(isLoading && !data);
  const logs = data?.result.logs ?? '';
  return (
    <Stack spacing={2}>
      <Stack direction="row" sx={{ justifyContent: 'space-between', alignItems: 'center' }}>
        <Typography variant="body2" color="text.secondary">
          What the session&apos;s main container wrote to its console.
        </Typography>
        <Button startIcon={<RefreshIcon />} onClick={() => void mutate()} disabled={isValidating}>
          Refresh
        </Button>
      </Stack>
      {error && <ProblemAlert error={error} />}
      {showSkeleton && <Skeleton variant="rounded" height={240} />}
      {data && (
        <Box
          component="pre"
          data-testid="session-logs"
          sx={{
            m: 0,
            p: 2,
            maxHeight: 480,
            overflow: 'auto',
            bgcolor: 'action.hover',
            borderRadius: 1,
            fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
            fontSize: 13,
            whiteSpace: 'pre-wrap',
            overflowWrap: 'anywhere',
          }}
        >
          {logs || 'Nothing logged yet.'}
        </Box>
      )}
    </Stack>
  );
}
