'use client';
/** The project form (create or edit: description, policy, scaling groups, storage hosts) and the members dialog. */
import { useState } from 'react';
import Autocomplete from '@mui/material/Autocomplete';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import { RemoveIcon } from '@/components/frame/icons';
import { CheckedTextField } from '@/components/ui/CheckedTextField';
import { FormDialog } from '@/components/ui/FormDialog';
import { Loading, ProblemAlert } from '@/components/ui/feedback';
import { NameSelect } from '@/components/ui/NameSelect';
import { useSending } from '@/components/ui/useSending';
import { addMember, createProject, hostGrants, hostsOf, modifyProject, removeMember, setProjectScalingGroups, useMembers, type Project } from './useProjects';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A multiple choice with free entries (names the lists do not know yet, such as a storage host being set up). */
export function NamesField({ label, options, value, onChange, helperText }: { label: string; options: string[]; value: string[]; onChange: (v: string[]) => void; helperText?: string }) {
  return (
    <Autocomplete
      multiple
      freeSolo
      options={options}
      value={value}
      onChange={(_e, next) => onChange([...new Set(next.map((n) => n.trim()).filter(Boolean))])}
      renderInput={(params) => <TextField {...params} label={label} helperText={helperText ?? 'Pick from the list or type a name and press Enter.'} />}
    />
  );
}

export interface ProjectChoices {
  domains: string[];
  policies: string[];
  scalingGroups: string[];
  hosts: string[];
}

export function ProjectDialog({ open, project, choices, onClose, onSaved }: { open: boolean; project: Project | null; choices: ProjectChoices; onClose: () => void; onSaved: (name: string) => void }) {
  const creating = project === null;
  const [name, setName] = useState('');
  const [domain, setDomain] = useState('');
  const [description, setDescription] = useState('');
  const [policy, setPolicy] = useState('');
  const [groups, setGroups] = useState<string[]>([]);
  const [hosts, setHosts] = useState<string[]>([]);
  const [submitted, setSubmitted] = useState(false);
  const nameProblem = creating && !NAME.test(name) ? 'Letters, digits, dots, dashes and underscores; at most 64.' : null;

  async function save() {
    setSubmitted(true);
    if (nameProblem) return;
    let id = project?.id ?? '';
    if (creating) id = await createProject(name, { domain_name: domain || choices.domains[0], description, ...(policy ? { resource_policy: policy } : {}) });
    const hostsBefore = hostsOf(project?.allowed_vfolder_hosts ?? null);
    const hostsChanged = hosts.join() !== hostsBefore.join();
    if (!creating || hostsChanged) {
      await modifyProject(id, { description, ...(hostsChanged ? { allowed_vfolder_hosts: hostGrants(project?.allowed_vfolder_hosts ?? null, hosts) } : {}), ...(policy && !creating ? { resource_policy: policy } : {}) });
    }
    await setProjectScalingGroups(id, project?.scaling_groups ?? [], groups);
    onSaved(creating ? name : project.name);
  }

  return (
    <FormDialog
      open={open}
      title={creating ? 'New project' : `Project ${project.name}`}
      submitLabel={creating ? 'Create' : 'Save'}
      maxWidth="sm"
      onOpen={() => {
        setName('');
        setDomain(project?.domain_name ?? choices.domains[0] ?? '');
        setDescription(project?.description ?? '');
        setPolicy(project?.resource_policy ?? '');
        setGroups(project ? (project.scaling_groups ?? []) : choices.scalingGroups);
        setHosts(hostsOf(project?.allowed_vfolder_hosts ?? null));
        setSubmitted(false);
      }}
      onSubmit={save}
      onClose={onClose}
    >
      {creating && <CheckedTextField label="Name" value={name} onChange={(e) => setName(e.target.value)} problem={nameProblem} submitted={submitted} autoFocus />}
      {creating && choices.domains.length > 1 && <NameSelect label="Domain" options={choices.domains} value={domain} onChange={setDomain} />}
      <TextField label="Description" value={description} onChange={(e) => setDescription(e.target.value)} />
      <NameSelect label="Project resource policy" options={choices.policies} value={policy} onChange={setPolicy} />
      <NamesField label="Scaling groups" options={choices.scalingGroups} value={groups} onChange={setGroups} helperText="Where the project's sessions may run." />
      <NamesField label="Storage hosts" options={choices.hosts} value={hosts} onChange={setHosts} helperText="Where the project's folders may live (new hosts get every permission)." />
    </FormDialog>
  );
}

export function MembersDialog({ project, onClose, onChanged }: { project: Project | null; onClose: () => void; onChanged: (message: string) => void }) {
  const { data, error } = useMembers(project?.id ?? null);
  const [email, setEmail] = useState('');
  const { pending, error: sendError, send } = useSending();
  const members = data?.users ?? undefined;
  return (
    <Dialog open={project !== null} onClose={pending ? undefined : onClose} maxWidth="sm" fullWidth aria-labelledby="members-title">
      <DialogTitle id="members-title">Members of {project?.name}</DialogTitle>
      <DialogContent>
        <Stack
          component="form"
          direction="row"
          spacing={1}
          sx={{ pt: 1, mb: 2 }}
          onSubmit={(e) => {
            e.preventDefault();
            const target = email.trim();
            if (!target || !project) return;
            void send(async () => {
              await addMember(project.id, target);
              setEmail('');
              onChanged(`Added ${target} to ${project.name}.`);
            });
          }}
        >
          <TextField label="User's email" value={email} onChange={(e) => setEmail(e.target.value)} size="small" fullWidth />
          <Button type="submit" variant="contained" disabled={pending || !email.trim()}>
            Add
          </Button>
        </Stack>
        <ProblemAlert error={sendError ?? error} sx={{ mb: 2 }} />
        {!members ? (
          <Loading rows={3} />
        ) : members.length === 0 ? (
          'No members yet.'
        ) : (
          <List dense aria-label="Members" data-testid="members">
            {members.map((m) => (
              <ListItem
                key={m.uuid}
                secondaryAction={
                  <IconButton
                    edge="end"
                    aria-label={`Remove ${m.email}`}
                    disabled={pending}
                    onClick={() => void send(async () => {
                      await removeMember(project!.id, m.uuid);
                      onChanged(`Removed ${m.email} from ${project!.name}.`);
                    })}
                  >
                    <RemoveIcon />
                  </IconButton>
                }
              >
                <ListItemText primary={m.email} secondary={m.full_name || undefined} />
              </ListItem>
            ))}
          </List>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={pending}>
          Close
        </Button>
      </DialogActions>
    </Dialog>
  );
}
