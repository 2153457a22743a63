'use client';
/** The environment variable rows of the launcher: name and value per row, remove, and "Add variable". */
import { useRef } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { AddIcon, CloseIcon } from '@/components/frame/icons';
import type { EnvRow } from './launchRules';

const monospace = { htmlInput: { spellCheck: false, style: { fontFamily: 'monospace' } } };

export function EnvironmentFields({ env, problems, onChange }: { env: EnvRow[]; problems: (string | null)[]; onChange: (env: EnvRow[]) => void }) {
  const nextId = useRef(1);
  const update = (id: number, change: Partial<EnvRow>) => onChange(env.map((r) => (r.id === id ? { ...r, ...change } : r)));
  return (
    <Stack spacing={2}>
      {env.map((row, index) => (
        <Stack key={row.id} direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: { sm: 'flex-start' } }}>
          <TextField
            label="Name"
            value={row.key}
            onChange={(e) => update(row.id, { key: e.target.value.trim() })}
            error={Boolean(problems[index])}
            helperText={problems[index] ?? ' '}
            slotProps={monospace}
            sx={{ flex: 1 }}
          />
          <TextField label="Value" value={row.value} onChange={(e) => update(row.id, { value: e.target.value })} helperText=" " slotProps={monospace} sx={{ flex: 2 }} />
          <IconButton aria-label={`Remove ${row.key || 'variable'}`} onClick={() => onChange(env.filter((r) => r.id !== row.id))} sx={{ mt: { sm: 1 } }}>
            <CloseIcon />
          </IconButton>
        </Stack>
      ))}
      <Box>
        <Button startIcon={<AddIcon />} onClick={() => onChange([...env, { id: nextId.current++, key: '', value: '' }])}>
          Add variable
        </Button>
      </Box>
    </Stack>
  );
}
