'use client';
/**
 * Create a model service: its name, the model folder (one of yours with usage mode `model`, mounted read-only at
 * /home/work/model), the image, how many replicas, whether callers need a token, and an optional startup command
 * for a folder without a model definition.
 */
import { NameField } from '@/components/ui/NameField';
import { useState } from 'react';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import { FormDialog } from '@/components/ui/FormDialog';
import { useManager } from '@/components/api/useManager';
import { isMountable, isTrashed, type FolderSummary } from '@/components/folders/useFolders';
import { createService, MODEL_MOUNT, SERVICE_IMAGES, serviceNameProblem, type ServeInfo } from './useServices';

export function CreateServiceDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (service: ServeInfo) => void }) {
  // The folder list (shared with the folders page's cache) is read only while the dialog is open.
  const { data: folders } = useManager<FolderSummary[]>(open ? '/folders' : null);
  const models = (folders ?? []).filter((f) => f.usage_mode === 'model' && f.is_owner && !isTrashed(f) && isMountable(f));
  const [name, setName] = useState('');
  const [model, setModel] = useState('');
  const [image, setImage] = useState('python');
  const [replicas, setReplicas] = useState('1');
  const [openToPublic, setOpenToPublic] = useState(false);
  const [startupCommand, setStartupCommand] = useState('');
  const nameProblem = name ? serviceNameProblem(name) : null;
  const count = Number(replicas);
  const replicasProblem = Number.isInteger(count) && count >= 0 && replicas !== '' ? null : 'A whole number, 0 or more.';
  const noModels = folders !== undefined && models.length === 0;

  return (
    <FormDialog
      open={open}
      title="New model service"
      submitLabel="Create"
      maxWidth="sm"
      submitDisabled={!name || Boolean(nameProblem) || !model || Boolean(replicasProblem)}
      onOpen={() => {
        setName('');
        setModel('');
        setImage('python');
        setReplicas('1');
        setOpenToPublic(false);
        setStartupCommand('');
      }}
      onSubmit={async () => onCreated(await createService({ name, model, image, replicas: count, openToPublic, startupCommand }))}
      onClose={onClose}
    >
      <NameField value={name} onChange={setName} problem={nameProblem} hint="Unique among your services." testId="service-name-input" />
      <TextField
        select
        label="Model folder"
        value={model}
        onChange={(e) => setModel(e.target.value)}
        required
        disabled={noModels}
        error={noModels}
        helperText={noModels ? 'You have no folder with usage “Model”: create one on the Folders page first.' : `Mounted read-only at ${MODEL_MOUNT}.`}
        slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'service-model-select' } as object } }}
      >
        {models.map((f) => (
          <MenuItem key={f.id} value={f.id}>
            {f.name}
          </MenuItem>
        ))}
      </TextField>
      <TextField select label="Image" value={image} onChange={(e) => setImage(e.target.value)}>
        {SERVICE_IMAGES.map((i) => (
          <MenuItem key={i.value} value={i.value}>
            {i.label}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        label="Replicas"
        type="number"
        value={replicas}
        onChange={(e) => setReplicas(e.target.value)}
        error={Boolean(replicasProblem)}
        helperText={replicasProblem ?? 'Sessions that serve the model; the endpoint balances across the healthy ones.'}
        slotProps={{ htmlInput: { min: 0, step: 1, 'data-testid': 'service-replicas-input' } }}
      />
      <TextField
        label="Startup command (optional)"
        value={startupCommand}
        onChange={(e) => setStartupCommand(e.target.value)}
        helperText="Starts the server when the folder has no model-definition.yaml. It must listen on $PORT."
        slotProps={{ htmlInput: { 'data-testid': 'service-command-input', autoComplete: 'off', spellCheck: false } }}
      />
      <FormControlLabel
        control={<Switch checked={openToPublic} onChange={(e) => setOpenToPublic(e.target.checked)} />}
        label="Open to the public (no token needed to call it)"
      />
    </FormDialog>
  );
}
