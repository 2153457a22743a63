'use client';
/** Create a folder: its name, what it is for, the owner's permission on it, and whether others may clone it. */
import { NameField } from '@/components/ui/NameField';
import { useState } from 'react';
import FormControlLabel from '@mui/material/FormControlLabel';
import Switch from '@mui/material/Switch';
import { FormDialog } from '@/components/ui/FormDialog';
import { PermissionSelect, UsageSelect } from './FolderFields';
import { createFolder, folderNameProblem, type Permission, type UsageMode } from './useFolders';

export function CreateFolderDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (folder: { id: string; name: string }) => void }) {
  const [name, setName] = useState('');
  const [usage, setUsage] = useState<UsageMode>('general');
  const [permission, setPermission] = useState<Permission>('rw');
  const [cloneable, setCloneable] = useState(false);
  const nameProblem = name ? folderNameProblem(name) : null;

  return (
    <FormDialog
      open={open}
      title="New folder"
      submitLabel="Create"
      submitDisabled={!name || Boolean(nameProblem)}
      onOpen={() => {
        setName('');
        setUsage('general');
        setPermission('rw');
        setCloneable(false);
      }}
      onSubmit={async () => onCreated(await createFolder({ name, usage_mode: usage, permission, cloneable }))}
      onClose={onClose}
    >
      <NameField value={name} onChange={setName} problem={nameProblem} hint="Mounted into sessions under /home/work/<name>." testId="folder-name-input" />
      <UsageSelect value={usage} onChange={setUsage} />
      <PermissionSelect value={permission} onChange={setPermission} />
      <FormControlLabel control={<Switch checked={cloneable} onChange={(e) => setCloneable(e.target.checked)} />} label="Others with access may clone it" />
    </FormDialog>
  );
}
