'use client';
/**
 * The Resources section of the launcher: the presets as a radio group (with "Custom"), the custom CPU and memory
 * with what is left for the user, and the number of containers.
 */
import Box from '@mui/material/Box';
import Grid from '@mui/material/Grid';
import Skeleton from '@mui/material/Skeleton';
import TextField from '@mui/material/TextField';
import { ProblemAlert, useDelayed } from '../common';
import { formatBytes } from '../model';
import type { usePresets, useResourceCheck } from '../useLauncher';
import { MAX_CLUSTER_SIZE } from './launchRules';
import { PresetCard } from './PresetCard';

export const CUSTOM = '__custom__';

/** A value typed into a field, with the sentence shown under it when it is wrong. */
export interface Field {
  value: string;
  onChange: (value: string) => void;
  problem: string | null;
}

/** One amount of the custom resources: its problem, or else how much of it is left for the user. */
function AmountField({ label, field, left, min, step }: { label: string; field: Field; left: string | null; min: number; step: number }) {
  return (
    <Grid size={{ xs: 12, sm: 6 }}>
      <TextField
        fullWidth
        label={label}
        type="number"
        value={field.value}
        onChange={(e) => field.onChange(e.target.value)}
        error={Boolean(field.problem)}
        helperText={field.problem ?? (left !== null ? `${left} left` : ' ')}
        slotProps={{ htmlInput: { min, step } }}
      />
    </Grid>
  );
}

export function ResourceFields({
  presets,
  check,
  allocatable,
  selected,
  onSelect,
  cpu,
  mem,
  left,
  clusterSize,
}: {
  presets: ReturnType<typeof usePresets>;
  check: ReturnType<typeof useResourceCheck>;
  allocatable: Map<string, boolean>;
  selected: string | null;
  onSelect: (choice: string) => void;
  cpu: Field;
  mem: Field;
  left: { cpu: number | null; mem: number | null };
  clusterSize: Field;
}) {
  const loading = useDelayed(!presets.data && !presets.error);
  return (
    <>
      {presets.error && <ProblemAlert error={presets.error} />}
      {check.error && <ProblemAlert severity="warning" error={check.error} />}
      {!presets.data && !presets.error ? (
        loading ? <Skeleton variant="rounded" height={88} /> : <Box sx={{ height: 88 }} />
      ) : (
        <Grid container spacing={2} role="radiogroup" aria-label="Resource preset">
          {(presets.data?.presets ?? []).map((p) => (
            <Grid key={p.name} size={{ xs: 12, sm: 6, md: 3 }}>
              <PresetCard preset={p} allocatable={allocatable.get(p.name)} selected={selected === p.name} onSelect={() => onSelect(p.name)} />
            </Grid>
          ))}
          <Grid size={{ xs: 12, sm: 6, md: 3 }}>
            <PresetCard preset={{ name: 'Custom', resource_slots: {}, shared_memory: null }} allocatable={undefined} selected={selected === CUSTOM} onSelect={() => onSelect(CUSTOM)} />
          </Grid>
        </Grid>
      )}
      {selected === CUSTOM && (
        <Grid container spacing={2} sx={{ mt: 1 }}>
          <AmountField label="CPU cores" field={cpu} left={left.cpu !== null ? String(left.cpu) : null} min={0.5} step={0.5} />
          <AmountField label="Memory (GiB)" field={mem} left={left.mem !== null ? formatBytes(left.mem) : null} min={0.125} step={0.25} />
        </Grid>
      )}
      <TextField
        label="Containers"
        type="number"
        value={clusterSize.value}
        onChange={(e) => clusterSize.onChange(e.target.value)}
        error={Boolean(clusterSize.problem)}
        helperText={clusterSize.problem ?? 'More than one makes a cluster on one node; each container gets these resources.'}
        slotProps={{ htmlInput: { min: 1, max: MAX_CLUSTER_SIZE, step: 1 } }}
        sx={{ mt: 3, width: { xs: '100%', sm: 320 } }}
      />
    </>
  );
}
