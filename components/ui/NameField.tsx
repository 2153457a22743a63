'use client';
/** The Name field a create dialog opens with: trimmed as typed, its problem shown in place of the hint. */
import TextField from '@mui/material/TextField';

export function NameField({ value, onChange, problem, hint, testId }: { value: string; onChange: (value: string) => void; problem: string | null; hint: string; testId: string }) {
  return (
    <TextField
      label="Name"
      value={value}
      onChange={(e) => onChange(e.target.value.trim())}
      autoFocus
      required
      error={Boolean(problem)}
      helperText={problem ?? hint}
      slotProps={{ htmlInput: { 'data-testid': testId, autoComplete: 'off' } }}
    />
  );
}
