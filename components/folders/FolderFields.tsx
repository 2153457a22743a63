'use client';
/** The select fields the folder dialogs share: what a folder is for, and the owner's permission on it. */
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import { PERMISSION_LABELS, USAGE_LABELS, type Permission, type UsageMode } from './useFolders';

function LabelSelect<T extends string>({ label, value, labels, onChange }: { label: string; value: T; labels: Record<T, string>; onChange: (value: T) => void }) {
  return (
    <TextField select label={label} value={value} onChange={(e) => onChange(e.target.value as T)}>
      {(Object.entries(labels) as [T, string][]).map(([option, text]) => (
        <MenuItem key={option} value={option}>
          {text}
        </MenuItem>
      ))}
    </TextField>
  );
}

export function UsageSelect({ value, onChange }: { value: UsageMode; onChange: (value: UsageMode) => void }) {
  return <LabelSelect label="Usage" value={value} labels={USAGE_LABELS} onChange={onChange} />;
}

export function PermissionSelect({ value, onChange }: { value: Permission; onChange: (value: Permission) => void }) {
  return <LabelSelect label="Your permission" value={value} labels={PERMISSION_LABELS} onChange={onChange} />;
}
