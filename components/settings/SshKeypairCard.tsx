'use client';
/**
 * The SSH keypair Berth places into the caller's sessions: the public key with a copy button, generating a new
 * pair (the private key is shown once, to download or copy, and is not kept by the page), and uploading a pair.
 */
import { useRef, useState, type ChangeEvent } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { CopyButton } from '@/components/ui/CopyButton';
import { EmptyState, Loading, ProblemAlert } from '@/components/ui/feedback';
import { SectionCard } from '@/components/ui/SectionCard';
import { DownloadIcon, KeyIcon, UploadIcon } from '@/components/frame/icons';
import { generateSshKeypair, uploadSshKeypair, useSshPublicKey } from './useSettings';
import { useSending } from '@/components/ui/useSending';
import { useDialogTarget } from '@/components/ui/useDialogTarget';
import { CodeField, MONO } from '@/components/ui/CodeField';
import { BusyButton } from '@/components/ui/BusyButton';


export function KeyText({ text, testId, maxHeight = 120 }: { text: string; testId?: string; maxHeight?: number }) {
  return (
    <Box
      component="pre"
      data-testid={testId}
      tabIndex={0}
      sx={{
        m: 0,
        p: 1.5,
        fontFamily: MONO,
        fontSize: 13,
        whiteSpace: 'pre-wrap',
        wordBreak: 'break-all',
        bgcolor: 'action.hover',
        borderRadius: 1,
        maxHeight,
        overflow: 'auto',
      }}
    >
      {text.trimEnd()}
    </Box>
  );
}

function downloadText(filename: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-pem-file' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function PrivateKeyDialog({ privateKey, onClose }: { privateKey: string | null; onClose: () => void }) {
  const [downloaded, setDownloaded] = useState(false);
  const close = () => {
    setDownloaded(false);
    onClose();
  };
  return (
    <Dialog open={privateKey !== null} onClose={close} maxWidth="md" fullWidth aria-labelledby="private-key-title">
      <DialogTitle id="private-key-title">Your new private key</DialogTitle>
      <DialogContent>
        <Stack spacing={2}>
          <Alert severity="warning">
            This is the only time the dashboard shows the private key. Download it (or copy it) now and keep it where only you can read it,
            e.g. <code>~/.ssh/berth_id_ed25519</code> with permission 600.
          </Alert>
          {privateKey && <KeyText text={privateKey} testId="ssh-private-key" maxHeight={260} />}
        </Stack>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        {privateKey && <CopyButton text={privateKey} label="Copy private key" />}
        <Button
          variant="outlined"
          startIcon={<DownloadIcon />}
          onClick={() => {
            if (!privateKey) return;
            downloadText('berth_id_ed25519', privateKey);
            setDownloaded(true);
          }}
        >
          Download
        </Button>
        <Button variant="contained" onClick={close}>
          {downloaded ? 'Done' : 'I have saved it'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function looksLikePublicKey(text: string): boolean {
  return /^(ssh-(ed25519|rsa|dss)|ecdsa-sha2-nistp\d+|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com) [A-Za-z0-9+/=]+/.test(text.trim());
}

function looksLikePrivateKey(text: string): boolean {
  return /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+-----END [A-Z ]*PRIVATE KEY-----/.test(text.trim());
}

function UploadDialog({ open, onClose, onUploaded }: { open: boolean; onClose: () => void; onUploaded: () => void }) {
  const [pubkey, setPubkey] = useState('');
  const [privkey, setPrivkey] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const { pending, error, setError, send } = useSending();
  const publicFile = useRef<HTMLInputElement>(null);
  const privateFile = useRef<HTMLInputElement>(null);

  const publicProblem = !pubkey.trim() ? 'Paste the public key (one line starting with ssh-ed25519, ssh-rsa or ecdsa-…).' : looksLikePublicKey(pubkey) ? null : 'This does not look like an OpenSSH public key.';
  const privateProblem = !privkey.trim() ? 'Paste the private key (-----BEGIN … PRIVATE KEY-----).' : looksLikePrivateKey(privkey) ? null : 'This does not look like a private key in PEM or OpenSSH format.';

  function reset() {
    setPubkey('');
    setPrivkey('');
    setSubmitted(false);
    setError(null);
  }

  async function readInto(event: ChangeEvent<HTMLInputElement>, set: (text: string) => void) {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (file) set(await file.text());
  }

  async function upload() {
    setSubmitted(true);
    if (publicProblem || privateProblem) return;
    await send(async () => {
      await uploadSshKeypair(pubkey, privkey);
      reset();
      onUploaded();
    });
  }

  return (
    <Dialog
      open={open}
      onClose={pending ? undefined : () => {
        reset();
        onClose();
      }}
      maxWidth="md"
      fullWidth
      aria-labelledby="upload-key-title"
    >
      <DialogTitle id="upload-key-title">Upload an SSH keypair</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Typography variant="body2" color="text.secondary">
            The pair replaces the one you have now. The manager checks that the public key belongs to the private key.
          </Typography>
          <Stack direction="row" spacing={1}>
            <Button size="small" startIcon={<UploadIcon />} onClick={() => publicFile.current?.click()}>
              Read public key from a file
            </Button>
            <input ref={publicFile} type="file" hidden accept=".pub,text/plain" onChange={(e) => void readInto(e, setPubkey)} />
          </Stack>
          <CodeField label="Public key" minRows={2} value={pubkey} onChange={setPubkey} error={submitted && Boolean(publicProblem)} helperText={(submitted && publicProblem) || ' '} />
          <Stack direction="row" spacing={1}>
            <Button size="small" startIcon={<UploadIcon />} onClick={() => privateFile.current?.click()}>
              Read private key from a file
            </Button>
            <input ref={privateFile} type="file" hidden onChange={(e) => void readInto(e, setPrivkey)} />
          </Stack>
          <CodeField
            label="Private key"
            minRows={6}
            maxRows={12}
            value={privkey}
            onChange={setPrivkey}
            error={submitted && Boolean(privateProblem)}
            helperText={(submitted && privateProblem) || ' '}
            textareaProps={{ autoComplete: 'off' }}
          />
          <ProblemAlert error={error} />
        </Stack>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button
          onClick={() => {
            reset();
            onClose();
          }}
          disabled={pending}
        >
          Cancel
        </Button>
        <BusyButton onClick={() => void upload()} busy={pending} busyLabel="Uploading…">
          Upload keypair
        </BusyButton>
      </DialogActions>
    </Dialog>
  );
}

export function SshKeypairCard({ onSaved }: { onSaved: (message: string) => void }) {
  const { data, error } = useSshPublicKey();
  const [confirming, setConfirming] = useState(false);
  const uploading = useDialogTarget();
  const [privateKey, setPrivateKey] = useState<string | null>(null);
  const { pending: generating, error: generateError, send } = useSending();
  const publicKey = data?.ssh_public_key ?? null;

  async function generate() {
    const pair = await generateSshKeypair();
    setPrivateKey(pair.ssh_private_key);
  }

  const generateFirst = () => send(generate);

  const actions = data && (
    <>
      <Button variant="outlined" startIcon={<UploadIcon />} onClick={() => uploading.open(true)}>
        Upload
      </Button>
      {publicKey && (
        <Button variant="contained" startIcon={<KeyIcon />} onClick={() => setConfirming(true)}>
          Generate new keypair
        </Button>
      )}
    </>
  );

  return (
    <SectionCard
      id="ssh"
      title="SSH keypair"
      description="Berth adds the public key to ~/.ssh/authorized_keys in your sessions, so you can reach them with SSH or SFTP using the private key."
      actions={actions}
    >
      {error ? (
        <ProblemAlert error={error} />
      ) : !data ? (
        <Loading rows={2} />
      ) : publicKey ? (
        <Stack spacing={1.5}>
          <Typography variant="caption" color="text.secondary">
            Public key
          </Typography>
          <KeyText text={publicKey} testId="ssh-public-key" />
          <div>
            <CopyButton text={publicKey.trim()} label="Copy public key" />
          </div>
        </Stack>
      ) : (
        <EmptyState
          icon={<KeyIcon sx={{ fontSize: 36 }} />}
          title="No SSH keypair yet"
          action={
            <BusyButton startIcon={<KeyIcon />} onClick={() => void generateFirst()} busy={generating} busyLabel="Generating…">
              Generate a keypair
            </BusyButton>
          }
        >
          Generate an ed25519 keypair here, or upload one you already use.
        </EmptyState>
      )}
      <ProblemAlert error={generateError} sx={{ mt: 2 }} />
      <ConfirmDialog
        open={confirming}
        title="Replace your SSH keypair?"
        confirmLabel="Generate new keypair"
        onConfirm={generate}
        onClose={() => setConfirming(false)}
      >
        <Typography variant="body2">
          A new pair replaces the current one. Sessions started from now on accept only the new key; the old private key stops working for them.
        </Typography>
      </ConfirmDialog>
      <UploadDialog
        open={uploading.isOpen}
        onClose={uploading.close}
        onUploaded={uploading.done(() => onSaved('Your SSH keypair is uploaded.'))}
      />
      <PrivateKeyDialog privateKey={privateKey} onClose={() => setPrivateKey(null)} />
    </SectionCard>
  );
}
