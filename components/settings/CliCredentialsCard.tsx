'use client';
/**
 * The command line's credentials: a plain form submission downloads them as a file (a single sign-on user has no
 * password for `berth login`). The keys go from the dashboard's server to the saved file; no page script sees them.
 */
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { SectionCard } from '@/components/ui/SectionCard';
import { MONO } from '@/components/ui/CodeField';


export function CliCredentialsCard() {
  return (
    <SectionCard title="Command line" description="Use Berth from a terminal (npx berth …) with the keypair you are signed in with.">
      <Stack spacing={1.5} sx={{ alignItems: 'flex-start' }}>
        <form method="post" action="/api/auth-extra/cli-credentials">
          <Button type="submit" variant="outlined" data-testid="cli-credentials-download">
            Download CLI credentials
          </Button>
        </form>
        <Typography variant="body2" color="text.secondary">
          Then put the file where the CLI looks for it, readable only by you:
        </Typography>
        <Typography component="pre" variant="body2" sx={{ fontFamily: MONO, m: 0, whiteSpace: 'pre-wrap' }}>
          {'mkdir -p ~/.config/berth && mv ~/Downloads/berth-credentials.json ~/.config/berth/credentials.json\nchmod 600 ~/.config/berth/credentials.json && npx berth whoami'}
        </Typography>
      </Stack>
    </SectionCard>
  );
}
