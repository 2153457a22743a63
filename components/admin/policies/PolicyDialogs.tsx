'use client';
/**
 * Create and edit dialogs for resource policies. Numbers are checked here (whole, 0 or more); slot amounts
 * ("4", "8g") are checked by the manager, whose refusal shows in the dialog.
 */
import { useState } from 'react';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { parseJsonField } from '@/components/api/graphql';
import { formatSeconds } from '@/components/sessions/TimeLeft';
import { CheckedTextField } from '@/components/ui/CheckedTextField';
import { FormDialog } from '@/components/ui/FormDialog';
import { savePolicy, type FolderPolicy, type KeypairPolicy, type PolicyKind } from './usePolicies';

const MAX_INT = 2_147_483_647;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A whole number as typed: 0 or more, at most 2^31-1. */
export function wholeProblem(text: string): string | null {
  if (!/^\d+$/.test(text.trim())) return 'A whole number, 0 or more.';
  return Number(text) > MAX_INT ? `At most ${MAX_INT}.` : null;
}

export function nameProblem(text: string): string | null {
  return NAME.test(text) ? null : 'Letters, digits, dots, dashes and underscores; at most 64.';
}

export function never(seconds: number | null): string {
  return seconds ? formatSeconds(seconds) : 'never';
}

type Fields = Record<string, string>;

function NumberField({ label, name, fields, set, submitted, helper }: { label: string; name: string; fields: Fields; set: (f: Fields) => void; submitted: boolean; helper?: string }) {
  return (
    <CheckedTextField
      label={label}
      value={fields[name] ?? ''}
      onChange={(e) => set({ ...fields, [name]: e.target.value })}
      problem={wholeProblem(fields[name] ?? '')}
      submitted={submitted}
      helperText={helper}
      slotProps={{ htmlInput: { inputMode: 'numeric' } }}
    />
  );
}

const KEYPAIR_NUMBERS: { name: keyof KeypairPolicy; label: string; helper: string }[] = [
  { name: 'max_concurrent_sessions', label: 'Concurrent sessions', helper: 'Sessions a keypair may run at once.' },
  { name: 'max_containers_per_session', label: 'Containers per session', helper: 'The largest cluster a session may have.' },
  { name: 'max_pending_session_count', label: 'Pending sessions', helper: 'Sessions a keypair may have waiting. 0: no limit.' },
  { name: 'idle_timeout', label: 'Idle timeout (seconds)', helper: 'An unused interactive session is ended after this. 0: never.' },
  { name: 'max_session_lifetime', label: 'Maximum session lifetime (seconds)', helper: 'Any session older than this is ended. 0: never.' },
];

/** Create (`policy` null) or edit a keypair policy: session limits and total resources. */
export function KeypairPolicyDialog({ open, policy, onClose, onSaved }: { open: boolean; policy: KeypairPolicy | null; onClose: () => void; onSaved: (name: string) => void }) {
  const [fields, setFields] = useState<Fields>({});
  const [submitted, setSubmitted] = useState(false);
  const creating = policy === null;
  const problems = [creating ? nameProblem(fields.name ?? '') : null, ...KEYPAIR_NUMBERS.map((n) => wholeProblem(fields[n.name] ?? ''))];

  async function save() {
    setSubmitted(true);
    if (problems.some(Boolean)) return;
    const slots: Record<string, string> = {};
    if (fields.cpu?.trim()) slots.cpu = fields.cpu.trim();
    if (fields.mem?.trim()) slots.mem = fields.mem.trim();
    const props: Record<string, unknown> = { total_resource_slots: JSON.stringify(slots) };
    for (const n of KEYPAIR_NUMBERS) props[n.name] = Number(fields[n.name]);
    const name = creating ? fields.name : policy.name;
    await savePolicy('keypair', creating ? 'create' : 'modify', name, props);
    onSaved(name);
  }

  return (
    <FormDialog
      open={open}
      title={creating ? 'New keypair resource policy' : `Keypair policy ${policy.name}`}
      submitLabel={creating ? 'Create' : 'Save'}
      maxWidth="sm"
      onOpen={() => {
        const slots = parseJsonField<Record<string, string>>(policy?.total_resource_slots, {});
        setFields({
          name: '',
          cpu: slots.cpu && slots.cpu !== 'Infinity' ? slots.cpu : '',
          mem: slots.mem && slots.mem !== 'Infinity' ? slots.mem : '',
          max_concurrent_sessions: String(policy?.max_concurrent_sessions ?? 30),
          max_containers_per_session: String(policy?.max_containers_per_session ?? 1),
          max_pending_session_count: String(policy?.max_pending_session_count ?? 0),
          idle_timeout: String(policy?.idle_timeout ?? 0),
          max_session_lifetime: String(policy?.max_session_lifetime ?? 0),
        });
        setSubmitted(false);
      }}
      onSubmit={save}
      onClose={onClose}
    >
      {creating && (
        <CheckedTextField label="Name" value={fields.name ?? ''} onChange={(e) => setFields({ ...fields, name: e.target.value })} problem={problems[0]} submitted={submitted} autoFocus />
      )}
      <Stack direction="row" spacing={2}>
        <TextField label="CPU cores in total" value={fields.cpu ?? ''} onChange={(e) => setFields({ ...fields, cpu: e.target.value })} helperText="Empty: unlimited." fullWidth />
        <TextField label="Memory in total" value={fields.mem ?? ''} onChange={(e) => setFields({ ...fields, mem: e.target.value })} helperText="e.g. 16g. Empty: unlimited." fullWidth />
      </Stack>
      {KEYPAIR_NUMBERS.map((n) => (
        <NumberField key={n.name} label={n.label} name={n.name} fields={fields} set={setFields} submitted={submitted} helper={n.helper} />
      ))}
    </FormDialog>
  );
}

/** Create (`policy` null) or edit a user or project policy: folder count and quota scope size. */
export function FolderPolicyDialog({ kind, open, policy, onClose, onSaved }: { kind: Exclude<PolicyKind, 'keypair'>; open: boolean; policy: FolderPolicy | null; onClose: () => void; onSaved: (name: string) => void }) {
  const [fields, setFields] = useState<Fields>({});
  const [submitted, setSubmitted] = useState(false);
  const creating = policy === null;
  const problems = [creating ? nameProblem(fields.name ?? '') : null, wholeProblem(fields.max_vfolder_count ?? ''), wholeProblem(fields.max_quota_scope_size ?? '')];

  async function save() {
    setSubmitted(true);
    if (problems.some(Boolean)) return;
    const name = creating ? fields.name : policy.name;
    await savePolicy(kind, creating ? 'create' : 'modify', name, { max_vfolder_count: Number(fields.max_vfolder_count), max_quota_scope_size: Number(fields.max_quota_scope_size) });
    onSaved(name);
  }

  return (
    <FormDialog
      open={open}
      title={creating ? `New ${kind} resource policy` : `${kind === 'user' ? 'User' : 'Project'} policy ${policy.name}`}
      submitLabel={creating ? 'Create' : 'Save'}
      onOpen={() => {
        setFields({ name: '', max_vfolder_count: String(policy?.max_vfolder_count ?? 0), max_quota_scope_size: String(Math.max(0, policy?.max_quota_scope_size ?? 0)) });
        setSubmitted(false);
      }}
      onSubmit={save}
      onClose={onClose}
    >
      {creating && (
        <CheckedTextField label="Name" value={fields.name ?? ''} onChange={(e) => setFields({ ...fields, name: e.target.value })} problem={problems[0]} submitted={submitted} autoFocus />
      )}
      <NumberField label="Folders" name="max_vfolder_count" fields={fields} set={setFields} submitted={submitted} helper="How many folders. 0: no limit." />
      <NumberField label="Quota scope size (bytes)" name="max_quota_scope_size" fields={fields} set={setFields} submitted={submitted} helper="0: no limit." />
    </FormDialog>
  );
}
