'use client';
/** Whether something (a project, a domain, a keypair) is active, as a small chip. */
import Chip from '@mui/material/Chip';

export function StateChip({ active }: { active: boolean }) {
  return <Chip size="small" label={active ? 'Active' : 'Inactive'} color={active ? 'success' : 'default'} variant={active ? 'filled' : 'outlined'} />;
}
