'use client';
/** The manager's announcement across the top of every signed-in page, when one is enabled. */
import Alert from '@mui/material/Alert';
import { useAnnouncement } from './useAnnouncement';

export function AnnouncementBanner() {
  const { data } = useAnnouncement();
  if (!data?.enabled || !data.message.trim()) return null;
  return (
    <Alert severity="info" variant="outlined" role="status" data-testid="announcement" sx={{ mb: 3, whiteSpace: 'pre-line' }}>
      {data.message}
    </Alert>
  );
}
