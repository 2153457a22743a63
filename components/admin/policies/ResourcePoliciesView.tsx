'use client';
/**
 * Resource policies: keypair policies (the limits every keypair's sessions live under), user and project policies
 * (folder limits), and who uses each. Admins see them; superadmins create, change and delete them (GraphQL
 * `create_/modify_/delete_*_resource_policy`) and change the idle limits the idle culler enforces (0: never).
 * A policy is applied to a keypair on the user's page.
 */
import { useState } from 'react';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import { useCurrentUser } from '@/components/auth/CurrentUser';
import { AddIcon, DeleteIcon, EditIcon, TimerIcon } from '@/components/frame/icons';
import { parseJsonField } from '@/components/api/graphql';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { actionsColumn, DataTable, type Column } from '@/components/ui/DataTable';
import { SectionCard } from '@/components/ui/SectionCard';
import { formatBytes, formatSlot } from '../format';
import { FolderPolicyDialog, KeypairPolicyDialog, never } from './PolicyDialogs';
import { deletePolicy, savePolicy, usePolicies, type FolderPolicy, type KeypairPolicy, type PolicyKind } from './usePolicies';
import { CheckedTextField } from '@/components/ui/CheckedTextField';
import { FormDialog } from '@/components/ui/FormDialog';
import { EmptyState } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/PageHeader';
import { useToast } from '@/components/ui/useToast';
import { RowAction } from '@/components/ui/tableParts';
import { useDialogTarget } from '@/components/ui/useDialogTarget';

type Policy = KeypairPolicy;

const MAX_SECONDS = 2_147_483_647;

/** Seconds as typed: whole, 0 or more. */
function secondsProblem(text: string): string | null {
  if (!/^\d+$/.test(text.trim())) return 'Whole seconds, 0 or more (0: never).';
  return Number(text) > MAX_SECONDS ? 'At most 2147483647 seconds.' : null;
}

/** A duration in whole seconds (0: never), checked as it is typed. */
function SecondsField({ label, value, onChange, submitted, helperText }: { label: string; value: string; onChange: (value: string) => void; submitted: boolean; helperText: string }) {
  return (
    <CheckedTextField
      label={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      problem={secondsProblem(value)}
      submitted={submitted}
      helperText={helperText}
      slotProps={{ htmlInput: { inputMode: 'numeric' } }}
    />
  );
}

function PolicyDialog({ policy, onClose, onSaved }: { policy: Policy | null; onClose: () => void; onSaved: (name: string) => void }) {
  const [idle, setIdle] = useState('');
  const [lifetime, setLifetime] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const problems = { idle: secondsProblem(idle), lifetime: secondsProblem(lifetime) };

  async function save() {
    setSubmitted(true);
    if (!policy || problems.idle || problems.lifetime) return;
    await savePolicy('keypair', 'modify', policy.name, { idle_timeout: Number(idle), max_session_lifetime: Number(lifetime) });
    onSaved(policy.name);
  }

  return (
    <FormDialog
      open={policy !== null}
      title={policy ? `Idle limits of ${policy.name}` : ''}
      submitLabel="Save"
      onOpen={() => {
        setIdle(String(policy?.idle_timeout ?? 0));
        setLifetime(String(policy?.max_session_lifetime ?? 0));
        setSubmitted(false);
      }}
      onSubmit={save}
      onClose={onClose}
    >
      <SecondsField label="Idle timeout (seconds)" value={idle} onChange={setIdle} submitted={submitted} helperText="An interactive session unused this long is ended. 0: never." />
      <SecondsField
        label="Maximum session lifetime (seconds)"
        value={lifetime}
        onChange={setLifetime}
        submitted={submitted}
        helperText="An interactive or batch session older than this is ended, in use or not. 0: never."
      />
    </FormDialog>
  );
}

/** "3 users" with the names in a tooltip. */
function UsedBy({ names, noun }: { names: string[] | undefined; noun: string }) {
  const count = names?.length ?? 0;
  const text = `${count} ${noun}${count === 1 ? '' : 's'}`;
  if (!count) return <>{text}</>;
  const unique = [...new Set(names)];
  return (
    <Tooltip title={unique.slice(0, 20).join(', ') + (unique.length > 20 ? ', …' : '')}>
      <span data-testid="used-by">{text}</span>
    </Tooltip>
  );
}

function slotsText(json: string | null): string {
  const slots = parseJsonField<Record<string, string>>(json, {});
  const parts = (['cpu', 'mem'] as const).filter((s) => slots[s] !== undefined && slots[s] !== 'Infinity').map((s) => `${formatSlot(s, slots[s])} ${s === 'cpu' ? 'CPU' : ''}`.trim());
  return parts.length ? parts.join(', ') : 'unlimited';
}

type Deleting = { kind: PolicyKind; name: string; users: number } | null;

function FolderPolicyCard({ kind, policies, users, error, canEdit, onEdit, onDelete }: { kind: 'user' | 'project'; policies: FolderPolicy[] | undefined; users: Record<string, string[]> | undefined; error: unknown; canEdit: boolean; onEdit: (p: FolderPolicy | null) => void; onDelete: (p: FolderPolicy) => void }) {
  const noun = kind === 'user' ? 'user' : 'project';
  const columns: Column<FolderPolicy>[] = [
    { key: 'name', label: 'Name', render: (p) => p.name, sortValue: (p) => p.name },
    { key: 'folders', label: 'Folders', render: (p) => p.max_vfolder_count || 'unlimited', sortValue: (p) => p.max_vfolder_count },
    { key: 'quota', label: 'Quota scope size', render: (p) => (p.max_quota_scope_size && p.max_quota_scope_size > 0 ? formatBytes(p.max_quota_scope_size) : 'unlimited'), sortValue: (p) => p.max_quota_scope_size },
    { key: 'used', label: 'Used by', render: (p) => <UsedBy names={users?.[p.name]} noun={noun} />, sortValue: (p) => users?.[p.name]?.length ?? 0 },
  ];
  if (canEdit)
    columns.push(
      actionsColumn<FolderPolicy>((p) => (
        <>
          <RowAction title="Edit" label={`Edit ${kind} policy ${p.name}`} icon={<EditIcon fontSize="small" />} onClick={() => onEdit(p)} size="small" />
          <RowAction title="Delete" label={`Delete ${kind} policy ${p.name}`} icon={<DeleteIcon fontSize="small" />} onClick={() => onDelete(p)} size="small" />
        </>
      )),
    );
  return (
    <SectionCard
      id={`${kind}-policies`}
      title={kind === 'user' ? 'User policies' : 'Project policies'}
      description={kind === 'user' ? "Limits on each user's folders." : "Limits on each project's folders."}
      actions={canEdit && <Button startIcon={<AddIcon />} onClick={() => onEdit(null)}>New {kind} policy</Button>}
    >
      <DataTable label={`${kind === 'user' ? 'User' : 'Project'} resource policies`} testId={`${kind}-policies-table`} columns={columns} rowKey={(p) => p.name} rows={policies} error={error} empty={<EmptyState title={`No ${kind} resource policies`} />} />
    </SectionCard>
  );
}

export function ResourcePoliciesView() {
  const { data, error } = usePolicies();
  const me = useCurrentUser();
  const canEdit = me.role === 'superadmin';
  const editing = useDialogTarget<Policy>();
  const keypairDialog = useDialogTarget<{ policy: Policy | null }>();
  const folderDialog = useDialogTarget<{ kind: 'user' | 'project'; policy: FolderPolicy | null }>();
  const [deleting, setDeleting] = useState<Deleting>(null);
  const [toast, notify] = useToast();
  const policies = data?.keypair;
  const keypairColumns: Column<KeypairPolicy>[] = [
    { key: 'name', label: 'Name', sortValue: (p) => p.name, render: (p) => p.name },
    { key: 'resources', label: 'Resources', wide: true, render: (p) => slotsText(p.total_resource_slots) },
    { key: 'idle', label: 'Idle timeout', render: (p) => never(p.idle_timeout) },
    { key: 'lifetime', label: 'Maximum lifetime', render: (p) => never(p.max_session_lifetime) },
    { key: 'concurrent', label: 'Concurrent sessions', wide: true, render: (p) => p.max_concurrent_sessions || 'unlimited' },
    { key: 'containers', label: 'Containers per session', wide: true, render: (p) => p.max_containers_per_session ?? '—' },
    { key: 'used_by', label: 'Used by', render: (p) => <UsedBy names={data?.users.keypair[p.name]} noun="keypair" /> },
    ...(canEdit
      ? [
          actionsColumn<KeypairPolicy>((p) => (
            <>
              <RowAction title="Edit idle limits" label={`Edit idle limits of ${p.name}`} icon={<TimerIcon fontSize="small" />} onClick={() => editing.open(p)} size="small" />
              <RowAction title="Edit" label={`Edit keypair policy ${p.name}`} icon={<EditIcon fontSize="small" />} onClick={() => keypairDialog.open({ policy: p })} size="small" />
              <RowAction title="Delete" label={`Delete keypair policy ${p.name}`} icon={<DeleteIcon fontSize="small" />} onClick={() => setDeleting({ kind: 'keypair', name: p.name, users: data?.users.keypair[p.name]?.length ?? 0 })} size="small" />
            </>
          )),
        ]
      : []),
  ];
  return (
    <>
      <PageHeader
        title="Resource policies"
        description="The limits of each keypair's sessions, and of each user's and project's folders. Idle sessions and sessions past their lifetime are ended automatically (0: never). Apply a keypair policy on a user's page."
      />
      <Stack spacing={3}>
        <SectionCard
          id="keypair-policies"
          title="Keypair policies"
          actions={canEdit && <Button startIcon={<AddIcon />} onClick={() => keypairDialog.open({ policy: null })}>New keypair policy</Button>}
        >
          <DataTable
            label="Keypair resource policies"
            testId="resource-policies-table"
            columns={keypairColumns}
            rowKey={(p) => p.name}
            rows={policies}
            loadingRows={3}
            error={error}
            empty={<EmptyState title="No keypair resource policies" />}
          />
        </SectionCard>
        {(['user', 'project'] as const).map((kind) => (
          <FolderPolicyCard
            key={kind}
            kind={kind}
            policies={data?.[kind]}
            users={data?.users[kind]}
            error={error}
            canEdit={canEdit}
            onEdit={(policy) => folderDialog.open({ kind, policy })}
            onDelete={(p) => setDeleting({ kind, name: p.name, users: data?.users[kind][p.name]?.length ?? 0 })}
          />
        ))}
      </Stack>
      <PolicyDialog
        policy={editing.target}
        onClose={editing.close}
        onSaved={editing.done((name) => notify(`Saved the idle limits of ${name}.`))}
      />
      <KeypairPolicyDialog
        open={keypairDialog.isOpen}
        policy={keypairDialog.target?.policy ?? null}
        onClose={keypairDialog.close}
        onSaved={keypairDialog.done((name) => notify(`Saved the keypair policy ${name}.`))}
      />
      <FolderPolicyDialog
        kind={folderDialog.target?.kind ?? 'user'}
        open={folderDialog.isOpen}
        policy={folderDialog.target?.policy ?? null}
        onClose={folderDialog.close}
        onSaved={folderDialog.done((name) => notify(`Saved the ${folderDialog.target?.kind} policy ${name}.`))}
      />
      <ConfirmDialog
        open={deleting !== null}
        title={deleting ? `Delete the ${deleting.kind} policy ${deleting.name}?` : ''}
        confirmLabel="Delete"
        danger
        onConfirm={async () => {
          await deletePolicy(deleting!.kind, deleting!.name);
          notify(`Deleted the ${deleting!.kind} policy ${deleting!.name}.`);
        }}
        onClose={() => setDeleting(null)}
      >
        {deleting?.users ? `It is in use (${deleting.users}); the manager refuses to delete a policy still in use.` : 'Nobody uses it. This cannot be undone.'}
      </ConfirmDialog>
      {toast}
    </>
  );
}
