'use client';
/**
 * The session's apps: a button per web app (Jupyter, …) that starts it and opens it in a new tab through the app
 * proxy. The tab is opened at the click (so no popup blocker stops it) and sent on once the app's address is
 * known; it never gets a handle back to the dashboard.
 */
import { useState } from 'react';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { ManagerError } from '@/components/api/problem';
import { OpenInNewIcon } from '@/components/frame/icons';
import { ProblemAlert } from './common';
import { openAppUrl, useSessionApps } from './useSessions';

const TITLES: Record<string, string> = { jupyter: 'Jupyter', jupyterlab: 'JupyterLab', vscode: 'VS Code', ttyd: 'Web terminal', tensorboard: 'TensorBoard' };
const title = (name: string) => TITLES[name] ?? name.charAt(0).toUpperCase() + name.slice(1);

export function SessionApps({ sessionId, usable }: { sessionId: string; usable: boolean }) {
  const { data, error } = useSessionApps(sessionId, true);
  const [opening, setOpening] = useState<string | null>(null);
  const [failure, setFailure] = useState<ManagerError | null>(null);
  const [blocked, setBlocked] = useState<{ app: string; url: string } | null>(null);
  const web = (data ?? []).filter((p) => p.protocol === 'http');
  const other = (data ?? []).filter((p) => p.protocol !== 'http' && p.protocol !== 'internal');

  async function open(app: string): Promise<void> {
    setFailure(null);
    setBlocked(null);
    setOpening(app);
    const tab = window.open('', '_blank');
    if (tab) {
      tab.opener = null;
      tab.document.title = `Opening ${title(app)}…`;
      tab.document.body.style.font = '16px system-ui, sans-serif';
      tab.document.body.textContent = `Starting ${title(app)}…`;
    }
    try {
      const url = await openAppUrl(sessionId, app);
      if (tab && !tab.closed) tab.location.replace(url);
      else setBlocked({ app, url });
    } catch (err) {
      tab?.close();
      setFailure(err as ManagerError);
    } finally {
      setOpening(null);
    }
  }

  if (error) return <ProblemAlert error={error} />;
  if (!data) return null;
  if (web.length === 0 && other.length === 0) {
    return (
      <Typography variant="body2" color="text.secondary">
        This image offers no apps; use the terminal.
      </Typography>
    );
  }
  return (
    <Stack spacing={1.5}>
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
        {web.map((p) => (
          <Button
            key={p.name}
            variant="outlined"
            onClick={() => void open(p.name)}
            disabled={!usable || opening !== null}
            startIcon={opening === p.name ? <CircularProgress size={16} color="inherit" /> : <OpenInNewIcon />}
            data-testid={`app-${p.name}`}
          >
            {title(p.name)}
          </Button>
        ))}
        {other.map((p) => (
          <Chip key={p.name} label={`${p.name} (${p.protocol} ${p.ports.join(', ')})`} variant="outlined" />
        ))}
      </Stack>
      {!usable && (
        <Typography variant="body2" color="text.secondary">
          Apps open once the session is running.
        </Typography>
      )}
      {failure && <ProblemAlert error={failure} />}
      {blocked && (
        <Typography variant="body2">
          Your browser blocked the new tab.{' '}
          <Link href={blocked.url} target="_blank" rel="noopener noreferrer">
            Open {title(blocked.app)}
          </Link>
        </Typography>
      )}
    </Stack>
  );
}
