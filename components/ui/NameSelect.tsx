'use client';
/**
 * A select over names (domains, resource policies). A value not among the options (a list not loaded yet, a name
 * since removed) shows as empty rather than making MUI warn about an out-of-range value.
 */
import MenuItem from '@mui/material/MenuItem';
import TextField, { type TextFieldProps } from '@mui/material/TextField';

export function NameSelect({ options, value, onChange, ...props }: Omit<TextFieldProps, 'select' | 'value' | 'onChange' | 'children'> & { options: string[]; value: string; onChange: (value: string) => void }) {
  return (
    <TextField select {...props} value={options.includes(value) ? value : ''} onChange={(e) => onChange(e.target.value)}>
      {options.map((name) => (
        <MenuItem key={name} value={name}>
          {name}
        </MenuItem>
      ))}
    </TextField>
  );
}
