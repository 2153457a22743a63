'use client';
/**
 * Import (convert) an image: the fields the manager's own form (GET /image/import) marks as essential, the rest
 * at its defaults. The conversion runs in a temporary session, whose logs show its progress.
 */
import { useState } from 'react';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import { FormDialog } from '@/components/ui/FormDialog';
import { Loading, ProblemAlert } from '@/components/ui/feedback';
import { importChoices, importDefaults, importImage, useImportForm } from './useImages';

type Fields = { src: string; target: string; brand: string; runtimePath: string; scalingGroup: string; group: string };

export function ImportImageDialog({ open, onClose, onStarted }: { open: boolean; onClose: () => void; onStarted: (sessionId: string) => void }) {
  const form = useImportForm(open);
  const [fields, setFields] = useState<Fields>({ src: '', target: '', brand: '', runtimePath: '/usr/bin/python3', scalingGroup: '', group: '' });
  const groups = form.data?.fieldGroups ?? [];
  const defaults = importDefaults(groups);
  const launch = (defaults.launchOptions ?? {}) as { scalingGroup?: string; group?: string };
  const set = (name: keyof Fields) => (e: { target: { value: string } }) => setFields({ ...fields, [name]: e.target.value });
  const choice = (name: 'scalingGroup' | 'group', label: string) => (
    <TextField select label={label} value={fields[name] || launch[name] || ''} onChange={set(name)}>
      {importChoices(groups, name).map((c) => (
        <MenuItem key={c} value={c}>
          {c}
        </MenuItem>
      ))}
    </TextField>
  );

  return (
    <FormDialog
      open={open}
      title="Import an image"
      submitLabel="Start import"
      maxWidth="sm"
      submitDisabled={!form.data || !fields.src.trim() || !fields.target.trim() || !fields.brand.trim()}
      onSubmit={async () => {
        const body = {
          ...defaults,
          src: fields.src.trim(),
          target: fields.target.trim(),
          brand: fields.brand.trim(),
          runtimePath: fields.runtimePath.trim(),
          launchOptions: { scalingGroup: fields.scalingGroup || launch.scalingGroup, group: fields.group || launch.group },
        };
        const answer = await importImage(body);
        onStarted(answer.importTask.sessionId);
      }}
      onClose={onClose}
    >
      {form.error ? (
        <ProblemAlert error={form.error} />
      ) : !form.data ? (
        <Loading rows={4} />
      ) : (
        <>
          <TextField label="Source image" value={fields.src} onChange={set('src')} helperText="An image Berth has: an alias, a canonical name or a committed image." autoFocus />
          <TextField label="Target image" value={fields.target} onChange={set('target')} helperText="e.g. myteam/python-custom:1.0 (lower case)." />
          <TextField label="Display name" value={fields.brand} onChange={set('brand')} />
          <TextField label="Runtime path" value={fields.runtimePath} onChange={set('runtimePath')} helperText="An absolute path inside the image." />
          {choice('scalingGroup', 'Resource group')}
          {choice('group', 'Project')}
        </>
      )}
    </FormDialog>
  );
}
