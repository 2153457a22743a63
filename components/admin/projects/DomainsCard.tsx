'use client';
/** Domains (superadmins): create, edit the description and scaling groups, deactivate or reactivate. */
import { useState } from 'react';
import Button from '@mui/material/Button';
import TextField from '@mui/material/TextField';
import { AddIcon, EditIcon, PlayIcon, StopIcon } from '@/components/frame/icons';
import { CheckedTextField } from '@/components/ui/CheckedTextField';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { actionsColumn, DataTable, type Column } from '@/components/ui/DataTable';
import { EmptyState } from '@/components/ui/feedback';
import { FormDialog } from '@/components/ui/FormDialog';
import { SectionCard } from '@/components/ui/SectionCard';
import { RowAction } from '@/components/ui/tableParts';
import { NamesField } from './ProjectDialogs';
import { StateChip } from '@/components/ui/StateChip';
import { createDomain, hostsOf, modifyDomain, setDomainScalingGroups, useDomains, type Domain } from './useProjects';
import { useDialogTarget } from '@/components/ui/useDialogTarget';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function DomainDialog({ open, domain, scalingGroups, onClose, onSaved }: { open: boolean; domain: Domain | null; scalingGroups: string[]; onClose: () => void; onSaved: (name: string) => void }) {
  const creating = domain === null;
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [groups, setGroups] = useState<string[]>([]);
  const [submitted, setSubmitted] = useState(false);
  const problem = creating && !NAME.test(name) ? 'Letters, digits, dots, dashes and underscores; at most 64.' : null;
  return (
    <FormDialog
      open={open}
      title={creating ? 'New domain' : `Domain ${domain.name}`}
      submitLabel={creating ? 'Create' : 'Save'}
      onOpen={() => {
        setName('');
        setDescription(domain?.description ?? '');
        setGroups(domain?.scaling_groups ?? []);
        setSubmitted(false);
      }}
      onSubmit={async () => {
        setSubmitted(true);
        if (problem) return;
        const target = creating ? name : domain.name;
        if (creating) await createDomain(target, description);
        else await modifyDomain(target, { description });
        await setDomainScalingGroups(target, domain?.scaling_groups ?? [], groups);
        onSaved(target);
      }}
      onClose={onClose}
    >
      {creating && <CheckedTextField label="Name" value={name} onChange={(e) => setName(e.target.value)} problem={problem} submitted={submitted} autoFocus />}
      <TextField label="Description" value={description} onChange={(e) => setDescription(e.target.value)} />
      <NamesField label="Scaling groups" options={scalingGroups} value={groups} onChange={setGroups} helperText="Where the domain's projects may run sessions." />
    </FormDialog>
  );
}

export function DomainsCard({ scalingGroups, notify }: { scalingGroups: string[]; notify: (message: string) => void }) {
  const { data, error } = useDomains(true);
  const editing = useDialogTarget<{ domain: Domain | null }>();
  const [toggling, setToggling] = useState<Domain | null>(null);
  const columns: Column<Domain>[] = [
    { key: 'name', label: 'Domain', render: (d) => d.name, sortValue: (d) => d.name },
    { key: 'state', label: 'State', render: (d) => <StateChip active={d.is_active} />, sortValue: (d) => (d.is_active ? 0 : 1) },
    { key: 'description', label: 'Description', render: (d) => d.description || '—', wide: true },
    { key: 'sgroups', label: 'Scaling groups', render: (d) => (d.scaling_groups ?? []).join(', ') || '—', wide: true },
    { key: 'hosts', label: 'Storage hosts', render: (d) => hostsOf(d.allowed_vfolder_hosts).join(', ') || '—', wide: true },
    actionsColumn<Domain>((d) => (
      <>
        <RowAction title="Edit" label={`Edit domain ${d.name}`} icon={<EditIcon fontSize="small" />} onClick={() => editing.open({ domain: d })} size="small" />
        <RowAction
          title={d.is_active ? 'Deactivate' : 'Activate'}
          label={`${d.is_active ? 'Deactivate' : 'Activate'} domain ${d.name}`}
          icon={d.is_active ? <StopIcon fontSize="small" /> : <PlayIcon fontSize="small" />}
          onClick={() => setToggling(d)}
          size="small"
        />
      </>
    )),
  ];
  return (
    <SectionCard
      id="domains"
      title="Domains"
      description="Each user and project belongs to one domain; domain admins manage theirs."
      actions={
        <Button startIcon={<AddIcon />} onClick={() => editing.open({ domain: null })}>
          New domain
        </Button>
      }
    >
      <DataTable label="Domains" testId="domains-table" columns={columns} rowKey={(d) => d.name} rows={data ? (data.domains ?? []) : undefined} error={error} empty={<EmptyState title="No domains" />} />
      <DomainDialog
        open={editing.isOpen}
        domain={editing.target?.domain ?? null}
        scalingGroups={scalingGroups}
        onClose={editing.close}
        onSaved={editing.done((name) => notify(`Saved the domain ${name}.`))}
      />
      <ConfirmDialog
        open={toggling !== null}
        title={`${toggling?.is_active ? 'Deactivate' : 'Activate'} the domain ${toggling?.name ?? ''}?`}
        confirmLabel={toggling?.is_active ? 'Deactivate' : 'Activate'}
        danger={Boolean(toggling?.is_active)}
        onConfirm={async () => {
          await modifyDomain(toggling!.name, { is_active: !toggling!.is_active });
          notify(`${toggling!.is_active ? 'Deactivated' : 'Activated'} the domain ${toggling!.name}.`);
        }}
        onClose={() => setToggling(null)}
      >
        {toggling?.is_active ? 'Its users can no longer sign in or launch sessions until it is active again.' : 'Its users can sign in again.'}
      </ConfirmDialog>
    </SectionCard>
  );
}
