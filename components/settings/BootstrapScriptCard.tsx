'use client';
/** The bootstrap script: a shell script run once in every new session before it is ready; at most 64 KiB. */
import { useEffect, useState } from 'react';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Loaded } from '@/components/ui/feedback';
import { SectionCard } from '@/components/ui/SectionCard';
import { formatBytes } from '@/components/admin/format';
import { byteLength, MAX_BOOTSTRAP_BYTES } from './dotfile-rules';
import { saveBootstrapScript, useBootstrapScript } from './useSettings';
import { useSending } from '@/components/ui/useSending';
import { CodeField } from '@/components/ui/CodeField';
import { SaveOrDiscard } from '@/components/ui/FormActions';

const PLACEHOLDER = '#!/bin/sh\n# Runs in /home/work of every new session before it is ready, e.g.:\npip install --user -r requirements.txt';

export function BootstrapScriptCard({ onSaved }: { onSaved: (message: string) => void }) {
  const { data, error } = useBootstrapScript();
  const [script, setScript] = useState('');
  const { pending, error: saveError, send } = useSending();

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the editor starts from the stored script once it has loaded
    if (typeof data === 'string') setScript(data);
  }, [data]);

  const size = byteLength(script);
  const tooLarge = size > MAX_BOOTSTRAP_BYTES;
  const dirty = typeof data === 'string' && script !== data;

  async function save() {
    if (tooLarge) return;
    await send(async () => {
      await saveBootstrapScript(script);
      onSaved(script === '' ? 'The bootstrap script is cleared.' : 'The bootstrap script is saved.');
    });
  }

  return (
    <SectionCard
      id="bootstrap"
      title="Bootstrap script"
      description="A shell script every new session runs once, in /home/work, before it is ready. Leave it empty to run nothing."
    >
      <Loaded error={error} data={data} rows={4}>
        {(data) => (
          <Stack spacing={1.5}>
            <CodeField label="Script" name="bootstrap-script" minRows={8} maxRows={28} value={script} placeholder={PLACEHOLDER} onChange={setScript} error={tooLarge} />
            <Stack spacing={0.5}>
              <LinearProgress
                variant="determinate"
                value={Math.min(100, (size / MAX_BOOTSTRAP_BYTES) * 100)}
                color={tooLarge ? 'error' : 'primary'}
                aria-label="Script size against the 64 KiB limit"
              />
              <Typography variant="caption" color={tooLarge ? 'error' : 'text.secondary'} data-testid="bootstrap-size">
                {formatBytes(size)} of {formatBytes(MAX_BOOTSTRAP_BYTES)}
                {tooLarge ? ` — shorten it by ${formatBytes(size - MAX_BOOTSTRAP_BYTES)} to save.` : ''}
              </Typography>
            </Stack>
            <SaveOrDiscard error={saveError} saveLabel="Save script" busy={pending} dirty={dirty} invalid={tooLarge} onSave={() => void save()} onDiscard={() => setScript(data)} />
          </Stack>
        )}
      </Loaded>
    </SectionCard>
  );
}
