'use client';
/**
 * Projects and domains: the projects (create, edit, deactivate, members, allowed scaling groups and storage hosts)
 * and, for superadmins, the domains.
 */
import { useState } from 'react';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import { useCurrentUser } from '@/components/auth/CurrentUser';
import { AddIcon, EditIcon, PersonAddIcon, StopIcon } from '@/components/frame/icons';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { actionsColumn, DataTable, type Column } from '@/components/ui/DataTable';
import { EmptyState } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/PageHeader';
import { RowAction } from '@/components/ui/tableParts';
import { StateChip } from '@/components/ui/StateChip';
import { useToast } from '@/components/ui/useToast';
import { DomainsCard } from './DomainsCard';
import { MembersDialog, ProjectDialog, type ProjectChoices } from './ProjectDialogs';
import { deactivateProject, hostsOf, useProjectChoices, useProjects, type Project } from './useProjects';
import { useDialogTarget } from '@/components/ui/useDialogTarget';

export function ProjectsView() {
  const me = useCurrentUser();
  const superadmin = me.role === 'superadmin';
  const { data, error } = useProjects();
  const options = useProjectChoices(superadmin);
  const editing = useDialogTarget<{ project: Project | null }>();
  const [members, setMembers] = useState<Project | null>(null);
  const [deactivating, setDeactivating] = useState<Project | null>(null);
  const [toast, notify] = useToast();
  const projects = data ? (data.groups ?? []) : undefined;
  const choices: ProjectChoices = {
    domains: superadmin ? (options.data?.domains ?? []).map((d) => d.name) : options.data?.domain ? [options.data.domain.name] : [],
    policies: (options.data?.project_resource_policies ?? []).map((p) => p.name),
    scalingGroups: (options.data?.scaling_groups ?? []).map((s) => s.name),
    hosts: [...new Set((projects ?? []).flatMap((p) => hostsOf(p.allowed_vfolder_hosts)))].sort(),
  };

  const columns: Column<Project>[] = [
    { key: 'name', label: 'Project', render: (p) => p.name, sortValue: (p) => p.name },
    { key: 'domain', label: 'Domain', render: (p) => p.domain_name, sortValue: (p) => p.domain_name, wide: true },
    { key: 'state', label: 'State', render: (p) => <StateChip active={p.is_active} />, sortValue: (p) => (p.is_active ? 0 : 1) },
    { key: 'policy', label: 'Policy', render: (p) => p.resource_policy ?? '—', sortValue: (p) => p.resource_policy, wide: true },
    { key: 'sgroups', label: 'Scaling groups', render: (p) => (p.scaling_groups ?? []).join(', ') || '—', wide: true },
    { key: 'hosts', label: 'Storage hosts', render: (p) => hostsOf(p.allowed_vfolder_hosts).join(', ') || '—', wide: true },
    actionsColumn<Project>((p) => (
      <>
        <RowAction title="Members" label={`Members of ${p.name}`} icon={<PersonAddIcon fontSize="small" />} onClick={() => setMembers(p)} size="small" />
        <RowAction title="Edit" label={`Edit ${p.name}`} icon={<EditIcon fontSize="small" />} onClick={() => editing.open({ project: p })} size="small" />
        {p.is_active && <RowAction title="Deactivate" label={`Deactivate ${p.name}`} icon={<StopIcon fontSize="small" />} onClick={() => setDeactivating(p)} size="small" />}
      </>
    )),
  ];

  return (
    <>
      <PageHeader
        title="Projects and domains"
        description="Projects group users: their members share project folders and launch sessions in the scaling groups the project may use."
        actions={
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => editing.open({ project: null })}>
            New project
          </Button>
        }
      />
      <Stack spacing={3}>
        <DataTable label="Projects" testId="projects-table" columns={columns} rowKey={(p) => p.id} rows={projects} error={error} empty={<EmptyState title="No projects">Create one to group users.</EmptyState>} />
        {superadmin && <DomainsCard scalingGroups={choices.scalingGroups} notify={notify} />}
      </Stack>
      <ProjectDialog
        open={editing.isOpen}
        project={editing.target?.project ?? null}
        choices={choices}
        onClose={editing.close}
        onSaved={editing.done((name) => notify(`Saved the project ${name}.`))}
      />
      <MembersDialog project={members} onClose={() => setMembers(null)} onChanged={notify} />
      <ConfirmDialog
        open={deactivating !== null}
        title={`Deactivate ${deactivating?.name ?? ''}?`}
        confirmLabel="Deactivate"
        danger
        onConfirm={async () => {
          await deactivateProject(deactivating!.id);
          notify(`Deactivated ${deactivating!.name}.`);
        }}
        onClose={() => setDeactivating(null)}
      >
        Its members can no longer launch sessions in it or create project folders. Existing folders stay.
      </ConfirmDialog>
      {toast}
    </>
  );
}
