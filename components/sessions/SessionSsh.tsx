'use client';
/**
 * The "SSH / SFTP" card: the exact commands to reach this session's sshd from one's own machine (a local forward
 * with the CLI, then the usual ssh, scp, sftp, rsync) and the session key's download. The download is a plain link
 * to the dashboard's relay (/api/manager/…/download_single): the browser saves the file, no script ever reads it.
 */
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

const LOCAL_PORT = 2222;

export function sshCommands(sessionName: string): { label: string; command: string }[] {
  const key = `~/.berth/${sessionName}.key`;
  const ssh = `ssh -p ${LOCAL_PORT} -i ${key}`;
  return [
    { label: `Forward the session's SSH server to a local port (leave it running; it saves the session key as ${key})`, command: `npx berth app ${sessionName} sshd --bind 127.0.0.1:${LOCAL_PORT}` },
    { label: 'Log in', command: `${ssh} work@127.0.0.1` },
    { label: 'Copy files', command: `scp -P ${LOCAL_PORT} -i ${key} ./file.txt work@127.0.0.1:` },
    { label: 'Browse with SFTP', command: `sftp -P ${LOCAL_PORT} -i ${key} work@127.0.0.1` },
    { label: 'Sync a directory', command: `rsync -e '${ssh}' -a ./data/ work@127.0.0.1:data/` },
    { label: 'Or in one step: fetch the key and log in', command: `npx berth ssh ${sessionName}` },
  ];
}

export function SessionSsh({ sessionId, sessionName }: { sessionId: string; sessionName: string }) {
  const keyHref = `/api/manager/session/${encodeURIComponent(sessionId)}/download_single?file=${encodeURIComponent('/home/work/id_container')}`;
  return (
    <Card variant="outlined" data-testid="ssh-card">
      <CardContent>
        <Stack direction="row" spacing={2} sx={{ justifyContent: 'space-between', alignItems: 'center', mb: 1.5 }}>
          <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
            SSH / SFTP
          </Typography>
          <Button variant="outlined" size="small" component="a" href={keyHref} download data-testid="ssh-key-download">
            Download session key
          </Button>
        </Stack>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
          Work from your own machine with ssh, scp, sftp, rsync or VS Code Remote-SSH. The key is this session&apos;s own and ends with it; keep
          it private. Downloaded with the button instead (id_container), save it as ~/.berth/{sessionName}.key and <code>chmod 600</code> it.
        </Typography>
        <Stack spacing={1.25}>
          {sshCommands(sessionName).map(({ label, command }) => (
            <div key={command}>
              <Typography variant="caption" color="text.secondary">
                {label}
              </Typography>
              <Typography component="pre" data-testid="ssh-command" sx={{ m: 0, p: 1, bgcolor: 'action.hover', borderRadius: 1, fontFamily: 'monospace', fontSize: 13, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                {command}
              </Typography>
            </div>
          ))}
        </Stack>
      </CardContent>
    </Card>
  );
}
