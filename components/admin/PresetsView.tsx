'use client';
/**
 * Resource presets: the named sizes users pick when they start a session. Everyone with admin rights sees them;
 * superadmins create, change and delete them (GraphQL `create_resource_preset`, `modify_resource_preset`,
 * `delete_resource_preset`).
 */
import { useState } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useCurrentUser } from '@/components/auth/CurrentUser';
import { AddIcon, DeleteIcon, EditIcon } from '@/components/frame/icons';
import { formatBytes, formatSlot, orderSlots, slotLabel, unitOf, type SlotUnits } from './format';
import { parseJsonField } from '@/components/api/graphql';
import { createPreset, deletePreset, modifyPreset, usePresets, type Preset } from './usePresets';
import { useScalingGroupNames } from './useScalingGroups';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { FormDialog } from '@/components/ui/FormDialog';
import { EmptyState } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/PageHeader';
import { useToast } from '@/components/ui/useToast';
import { useSlotUnits } from './useSlotUnits';
import { RowAction } from '@/components/ui/tableParts';
import { actionsColumn, DataTable, type Column } from '@/components/ui/DataTable';

const BINARY_SIZE = /^\d+(\.\d+)?\s*([kmgtpe](i?b)?)?$/i;

/** A byte slot's stored value (bytes) as the text a person edits: "4g" rather than 4294967296. */
function bytesToText(bytes: number): string {
  const units = ['', 'k', 'm', 'g', 't', 'p'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && value % 1024 === 0 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value}${units[unit]}`;
}

function PresetDialog({
  open,
  editing,
  units,
  onClose,
  onSaved,
}: {
  open: boolean;
  editing: Preset | null;
  units: SlotUnits;
  onClose: () => void;
  onSaved: (name: string) => void;
}) {
  const scalingGroups = useScalingGroupNames(open);
  const slotNames = orderSlots(Object.keys(units));
  const [name, setName] = useState('');
  const [amounts, setAmounts] = useState<Record<string, string>>({});
  const [sharedMemory, setSharedMemory] = useState('');
  const [scalingGroup, setScalingGroup] = useState('');
  const [submitted, setSubmitted] = useState(false);

  function reset() {
    const slots = editing ? parseJsonField<Record<string, string>>(editing.resource_slots, {}) : {};
    const texts: Record<string, string> = {};
    for (const [slot, value] of Object.entries(slots)) texts[slot] = unitOf(slot, units) === 'bytes' && /^\d+$/.test(value) ? bytesToText(Number(value)) : value;
    setName(editing?.name ?? '');
    setAmounts(texts);
    setSharedMemory(editing?.shared_memory ? bytesToText(editing.shared_memory) : '');
    setScalingGroup(editing?.scaling_group_name ?? '');
    setSubmitted(false);
  }

  const amountProblem = (slot: string): string | null => {
    const text = (amounts[slot] ?? '').trim();
    if (!text) return null;
    if (unitOf(slot, units) === 'bytes') return BINARY_SIZE.test(text) ? null : 'A size such as 512m, 4g or 1.5g.';
    return /^\d+(\.\d+)?$/.test(text) ? null : 'A number, 0 or more.';
  };
  const given = slotNames.filter((slot) => (amounts[slot] ?? '').trim() !== '');
  const problems = {
    name: !name.trim() ? 'Give the preset a name.' : name.trim().length > 64 || name.includes('/') ? 'At most 64 characters, without “/”.' : null,
    slots: given.length === 0 ? 'Give at least one slot, such as CPU and memory.' : null,
    sharedMemory: sharedMemory.trim() && !BINARY_SIZE.test(sharedMemory.trim()) ? 'A size such as 64m or 1g.' : null,
  };
  const valid = !problems.name && !problems.slots && !problems.sharedMemory && slotNames.every((s) => !amountProblem(s));

  async function save() {
    setSubmitted(true);
    if (!valid) return;
    const resourceSlots: Record<string, string> = {};
    for (const slot of given) resourceSlots[slot] = amounts[slot].trim();
    // Slots the preset had that the cluster no longer offers are kept as they were.
    if (editing) {
      for (const [slot, value] of Object.entries(parseJsonField<Record<string, string>>(editing.resource_slots, {}))) {
        if (!slotNames.includes(slot)) resourceSlots[slot] = value;
      }
    }
    const props = {
      resource_slots: JSON.stringify(resourceSlots),
      shared_memory: sharedMemory.trim() || null,
      scaling_group_name: scalingGroup || null,
    };
    if (editing) await modifyPreset(editing.id, { ...props, name: name.trim() });
    else await createPreset(name.trim(), props);
    onSaved(name.trim());
  }

  const groupNames = scalingGroups.data?.scaling_groups?.map((g) => g.name) ?? [];
  return (
    <FormDialog
      open={open}
      title={editing ? `Edit preset ${editing.name}` : 'New resource preset'}
      submitLabel={editing ? 'Save changes' : 'Create preset'}
      maxWidth="sm"
      onOpen={reset}
      onSubmit={save}
      onClose={onClose}
    >
      <TextField
        label="Name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        autoFocus
        error={Boolean((submitted || name) && problems.name)}
        helperText={((submitted || name) && problems.name) || 'Shown in the session launcher, e.g. small or gpu-large.'}
      />
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>
        {slotNames.map((slot) => (
          <TextField
            key={slot}
            label={slotLabel(slot)}
            value={amounts[slot] ?? ''}
            onChange={(e) => setAmounts((prev) => ({ ...prev, [slot]: e.target.value }))}
            error={Boolean(amountProblem(slot))}
            helperText={amountProblem(slot) || (unitOf(slot, units) === 'bytes' ? 'Size, e.g. 4g' : slot === 'cpu' ? 'Cores, e.g. 2' : 'Amount')}
          />
        ))}
        <TextField
          label="Shared memory"
          value={sharedMemory}
          onChange={(e) => setSharedMemory(e.target.value)}
          error={Boolean(problems.sharedMemory)}
          helperText={problems.sharedMemory || 'Optional, e.g. 64m (/dev/shm)'}
        />
        <TextField select label="Scaling group" value={scalingGroup} onChange={(e) => setScalingGroup(e.target.value)} helperText="Where the preset is offered">
          <MenuItem value="">All scaling groups</MenuItem>
          {[...new Set([...groupNames, ...(scalingGroup ? [scalingGroup] : [])])].map((g) => (
            <MenuItem key={g} value={g}>
              {g}
            </MenuItem>
          ))}
        </TextField>
      </Box>
      {submitted && problems.slots && <Typography variant="body2" color="error">{problems.slots}</Typography>}
    </FormDialog>
  );
}

export function PresetsView() {
  const me = useCurrentUser();
  const superadmin = me.role === 'superadmin';
  const { data, error } = usePresets();
  const units = useSlotUnits();
  const [dialog, setDialog] = useState<{ editing: Preset | null } | null>(null);
  const [deleting, setDeleting] = useState<Preset | null>(null);
  const [toast, notify] = useToast();
  const presets = data?.resource_presets ?? null;

  const slots = orderSlots([...Object.keys(units.data ?? {}), ...(presets ?? []).flatMap((p) => Object.keys(parseJsonField<Record<string, string>>(p.resource_slots, {})))]);

  const amountsOf = (preset: Preset) => parseJsonField<Record<string, string>>(preset.resource_slots, {});
  const columns: Column<Preset>[] = [
    { key: 'name', label: 'Name', cellSx: { fontWeight: 500 }, sortValue: (p) => p.name, render: (p) => p.name },
    ...slots.map(
      (slot): Column<Preset> => ({
        key: `slot-${slot}`,
        label: slotLabel(slot),
        align: 'right',
        cellSx: { whiteSpace: 'nowrap' },
        render: (p) => (amountsOf(p)[slot] === undefined ? '—' : formatSlot(slot, amountsOf(p)[slot], units.data)),
      }),
    ),
    { key: 'shared_memory', label: 'Shared memory', align: 'right', cellSx: { whiteSpace: 'nowrap' }, render: (p) => (p.shared_memory ? formatBytes(p.shared_memory) : '—') },
    { key: 'scaling_group', label: 'Scaling group', render: (p) => p.scaling_group_name ?? <Chip size="small" variant="outlined" label="All" /> },
    ...(superadmin
      ? [
          actionsColumn<Preset>((p) => (
            <>
              <RowAction title="Edit" label={`Edit ${p.name}`} icon={<EditIcon fontSize="small" />} onClick={() => setDialog({ editing: p })} />
              <RowAction title="Delete" label={`Delete ${p.name}`} icon={<DeleteIcon fontSize="small" />} onClick={() => setDeleting(p)} />
            </>
          )),
        ]
      : []),
  ];

  return (
    <>
      <PageHeader
        title="Resource presets"
        description="Named session sizes users choose from in the launcher. A preset is offered in every scaling group unless it names one."
        actions={
          superadmin && (
            <Button variant="contained" startIcon={<AddIcon />} onClick={() => setDialog({ editing: null })} disabled={!units.data}>
              New preset
            </Button>
          )
        }
      />
      <DataTable
        label="Resource presets"
        testId="presets-table"
        columns={columns}
        rowKey={(p) => p.id}
        rows={presets && units.data ? presets : undefined}
        loadingRows={3}
        error={error || units.error}
        empty={
          <EmptyState
            title="No resource presets"
            action={
              superadmin && (
                <Button variant="outlined" startIcon={<AddIcon />} onClick={() => setDialog({ editing: null })}>
                  Create a preset
                </Button>
              )
            }
          >
            Without presets, users give CPU and memory by hand when they start a session.
          </EmptyState>
        }
      />
      {superadmin && units.data && (
        <PresetDialog
          open={dialog !== null}
          editing={dialog?.editing ?? null}
          units={units.data}
          onClose={() => setDialog(null)}
          onSaved={(name) => {
            notify(dialog?.editing ? `Preset ${name} is saved.` : `Preset ${name} is created.`);
            setDialog(null);
          }}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete preset ${deleting?.name ?? ''}?`}
        confirmLabel="Delete"
        danger
        onConfirm={async () => {
          await deletePreset(deleting!.id);
          notify(`Preset ${deleting!.name} is deleted.`);
        }}
        onClose={() => setDeleting(null)}
      >
        <Typography variant="body2">Users no longer see it in the launcher. Sessions started with it keep their resources.</Typography>
      </ConfirmDialog>
      {toast}
    </>
  );
}
