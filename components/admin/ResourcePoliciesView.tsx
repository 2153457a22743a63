'use client';
/**
 * Keypair resource policies: the limits every keypair's sessions live under. Admins see them; superadmins change
 * the idle timeout and the maximum session lifetime the idle culler enforces (issue 14; GraphQL
 * `modify_keypair_resource_policy`). 0 means never.
 */
import { useState } from 'react';
import Card from '@mui/material/Card';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import { useCurrentUser } from '@/components/auth/CurrentUser';
import { EditIcon } from '@/components/frame/icons';
import { formatSeconds } from '@/components/sessions/TimeLeft';
import { graphqlMutation, revalidateGraphql, useGraphql } from '@/components/api/graphql';
import { CheckedTextField } from '@/components/ui/CheckedTextField';
import { FormDialog } from '@/components/ui/FormDialog';
import { EmptyState } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/PageHeader';
import { useToast } from '@/components/ui/useToast';
import { ActionsHeaderCell, ListCardContent, RowAction } from '@/components/ui/tableParts';

interface Policy {
  name: string;
  idle_timeout: number | null;
  max_session_lifetime: number | null;
  max_concurrent_sessions: number | null;
}

const QUERY = '{ keypair_resource_policies { name idle_timeout max_session_lifetime max_concurrent_sessions } }';
const MAX_SECONDS = 2_147_483_647;

function never(seconds: number | null): string {
  return seconds ? formatSeconds(seconds) : 'never';
}

/** Seconds as typed: whole, 0 or more. */
function secondsProblem(text: string): string | null {
  if (!/^\d+$/.test(text.trim())) return 'Whole seconds, 0 or more (0: never).';
  return Number(text) > MAX_SECONDS ? 'At most 2147483647 seconds.' : null;
}

function PolicyDialog({ policy, onClose, onSaved }: { policy: Policy | null; onClose: () => void; onSaved: (name: string) => void }) {
  const [idle, setIdle] = useState('');
  const [lifetime, setLifetime] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const problems = { idle: secondsProblem(idle), lifetime: secondsProblem(lifetime) };

  async function save() {
    setSubmitted(true);
    if (!policy || problems.idle || problems.lifetime) return;
    await graphqlMutation(
      'modify_keypair_resource_policy',
      'mutation($name: String!, $props: ModifyKeyPairResourcePolicyInput!) { modify_keypair_resource_policy(name: $name, props: $props) { ok msg } }',
      { name: policy.name, props: { idle_timeout: Number(idle), max_session_lifetime: Number(lifetime) } },
    );
    await revalidateGraphql('keypair_resource_policies');
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
      <CheckedTextField
        label="Idle timeout (seconds)"
        value={idle}
        onChange={(e) => setIdle(e.target.value)}
        problem={problems.idle}
        submitted={submitted}
        helperText="An interactive session unused this long is ended. 0: never."
        slotProps={{ htmlInput: { inputMode: 'numeric' } }}
      />
      <CheckedTextField
        label="Maximum session lifetime (seconds)"
        value={lifetime}
        onChange={(e) => setLifetime(e.target.value)}
        problem={problems.lifetime}
        submitted={submitted}
        helperText="An interactive or batch session older than this is ended, in use or not. 0: never."
        slotProps={{ htmlInput: { inputMode: 'numeric' } }}
      />
    </FormDialog>
  );
}

export function ResourcePoliciesView() {
  const { data, error } = useGraphql<{ keypair_resource_policies: Policy[] | null }>(QUERY);
  const me = useCurrentUser();
  const canEdit = me.role === 'superadmin';
  const [editing, setEditing] = useState<Policy | null>(null);
  const [toast, notify] = useToast();
  const policies = data ? (data.keypair_resource_policies ?? []) : undefined;
  return (
    <>
      <PageHeader
        title="Resource policies"
        description="The limits of each keypair's sessions. Idle sessions and sessions past their lifetime are ended automatically (0: never)."
      />
      <Card variant="outlined">
        <ListCardContent error={error} data={policies} loadingRows={3} isEmpty={(p) => p.length === 0} empty={<EmptyState title="No keypair resource policies" />}>
          {(rows) => (
            <TableContainer>
              <Table size="small" aria-label="Keypair resource policies" data-testid="resource-policies-table">
                <TableHead>
                  <TableRow>
                    <TableCell>Name</TableCell>
                    <TableCell>Idle timeout</TableCell>
                    <TableCell>Maximum lifetime</TableCell>
                    <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>Concurrent sessions</TableCell>
                    {canEdit && <ActionsHeaderCell />}
                  </TableRow>
                </TableHead>
                <TableBody>
                  {rows.map((p) => (
                    <TableRow key={p.name} hover>
                      <TableCell>{p.name}</TableCell>
                      <TableCell>{never(p.idle_timeout)}</TableCell>
                      <TableCell>{never(p.max_session_lifetime)}</TableCell>
                      <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>{p.max_concurrent_sessions || 'unlimited'}</TableCell>
                      {canEdit && (
                        <TableCell align="right">
                          <RowAction title="Edit idle limits" label={`Edit idle limits of ${p.name}`} icon={<EditIcon fontSize="small" />} onClick={() => setEditing(p)} size="small" />
                        </TableCell>
                      )}
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
          )}
        </ListCardContent>
      </Card>
      <PolicyDialog
        policy={editing}
        onClose={() => setEditing(null)}
        onSaved={(name) => {
          setEditing(null);
          notify(`Saved the idle limits of ${name}.`);
        }}
      />
      {toast}
    </>
  );
}
