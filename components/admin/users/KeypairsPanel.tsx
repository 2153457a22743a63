'use client';
/**
 * One user's keypairs: list (masked), create, deactivate or reactivate, the rate limit and the resource policy. Keys themselves never
 * reach the page; users sign in with their password, and the CLI gets the main keypair from `berth login`.
 */
import { useState } from 'react';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Chip from '@mui/material/Chip';
import FormControlLabel from '@mui/material/FormControlLabel';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { AddIcon } from '@/components/frame/icons';
import { useKeypairPolicyNames } from '../policies/usePolicies';
import { NameSelect } from '@/components/ui/NameSelect';
import { formatRelative } from '../format';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { FormDialog } from '@/components/ui/FormDialog';
import { EmptyState, Loading, ProblemAlert } from '@/components/ui/feedback';
import { SectionCard } from '@/components/ui/SectionCard';
import { createKeypair, modifyKeypair, useKeypairs, type MaskedKeypair } from './useKeypairs';
import { useDialogTarget } from '@/components/ui/useDialogTarget';
import { MONO } from '@/components/ui/CodeField';

const DEFAULT_RATE_LIMIT = 10000;

/** Requests per 15 minutes; null is unlimited. */
function RateLimitFields({ value, onChange }: { value: number | null; onChange: (value: number | null) => void }) {
  const [text, setText] = useState(value === null ? String(DEFAULT_RATE_LIMIT) : String(value));
  const unlimited = value === null;
  const n = Number(text);
  const invalid = !unlimited && !(Number.isInteger(n) && n >= 0 && text.trim() !== '');
  return (
    <Stack spacing={1}>
      <TextField
        label="Requests per 15 minutes"
        type="number"
        value={unlimited ? '' : text}
        disabled={unlimited}
        onChange={(e) => {
          setText(e.target.value);
          const next = Number(e.target.value);
          onChange(Number.isInteger(next) && next >= 0 && e.target.value.trim() !== '' ? next : NaN);
        }}
        error={invalid}
        helperText={invalid ? 'A whole number, 0 or more.' : 'Requests beyond this within any 15-minute window are refused with 429.'}
        slotProps={{ htmlInput: { min: 0, step: 100 } }}
      />
      <FormControlLabel
        control={<Checkbox checked={unlimited} onChange={(e) => onChange(e.target.checked ? null : Number(text) >= 0 ? Number(text) : DEFAULT_RATE_LIMIT)} />}
        label="Unlimited"
      />
    </Stack>
  );
}

function rateLimitValid(value: number | null): boolean {
  return value === null || (Number.isInteger(value) && value >= 0);
}

function CreateKeypairDialog({ email, open, onClose, onCreated }: { email: string; open: boolean; onClose: () => void; onCreated: (hint: string) => void }) {
  const [isAdmin, setIsAdmin] = useState(false);
  const [rateLimit, setRateLimit] = useState<number | null>(DEFAULT_RATE_LIMIT);

  return (
    <FormDialog
      open={open}
      title={`New keypair for ${email}`}
      submitLabel="Create keypair"
      submitDisabled={!rateLimitValid(rateLimit)}
      onSubmit={async () => {
        const created = await createKeypair(email, { is_admin: isAdmin, rate_limit: rateLimit });
        onCreated(created.hint);
      }}
      onClose={onClose}
    >
      <RateLimitFields value={rateLimit} onChange={setRateLimit} />
      <FormControlLabel control={<Checkbox checked={isAdmin} onChange={(e) => setIsAdmin(e.target.checked)} />} label="Admin keypair (for users with an admin role)" />
      <Typography variant="body2" color="text.secondary">
        The dashboard never shows keys. The owner reads them through the API (GraphQL <code>keypairs</code>); <code>berth login</code> fetches
        their main keypair.
      </Typography>
    </FormDialog>
  );
}

function RateLimitDialog({ email, keypair, onClose, onSaved }: { email: string; keypair: MaskedKeypair | null; onClose: () => void; onSaved: () => void }) {
  const [rateLimit, setRateLimit] = useState<number | null>(keypair?.rate_limit ?? null);
  return (
    <ConfirmDialog
      open={keypair !== null}
      title={`Rate limit of ${keypair?.hint ?? ''}`}
      confirmLabel="Save"
      confirmDisabled={!rateLimitValid(rateLimit)}
      onConfirm={async () => {
        await modifyKeypair(email, keypair!.id, { rate_limit: rateLimit });
        onSaved();
      }}
      onClose={onClose}
    >
      <RateLimitFields value={rateLimit} onChange={setRateLimit} />
    </ConfirmDialog>
  );
}

function PolicyDialog({ email, keypair, onClose, onSaved }: { email: string; keypair: MaskedKeypair | null; onClose: () => void; onSaved: (policy: string) => void }) {
  const [policy, setPolicy] = useState(keypair?.resource_policy ?? '');
  const { data } = useKeypairPolicyNames(keypair !== null);
  return (
    <ConfirmDialog
      open={keypair !== null}
      title={`Resource policy of ${keypair?.hint ?? ''}`}
      confirmLabel="Apply"
      confirmDisabled={!policy || policy === keypair?.resource_policy}
      onConfirm={async () => {
        await modifyKeypair(email, keypair!.id, { resource_policy: policy });
        onSaved(policy);
      }}
      onClose={onClose}
    >
      <NameSelect label="Keypair resource policy" options={(data?.keypair_resource_policies ?? []).map((p) => p.name)} value={policy} onChange={setPolicy} fullWidth helperText="Limits of this keypair's sessions; new sessions are held to them." />
    </ConfirmDialog>
  );
}

export function KeypairsPanel({ email, onSaved, readOnly = false }: { email: string; onSaved: (message: string) => void; readOnly?: boolean }) {
  const { data, error } = useKeypairs(email);
  const creating = useDialogTarget();
  const [limiting, setLimiting] = useState<MaskedKeypair | null>(null);
  const [toggling, setToggling] = useState<MaskedKeypair | null>(null);
  const [applying, setApplying] = useState<MaskedKeypair | null>(null);
  const keypairs = data?.keypairs;
  const activeCount = keypairs?.filter((k) => k.is_active).length ?? 0;

  return (
    <SectionCard
      id="keypairs"
      title="Keypairs"
      description="API credentials of this user. Signing in uses the main keypair, or the oldest active one."
      actions={
        !readOnly && (
          <Button variant="outlined" startIcon={<AddIcon />} onClick={() => creating.open(true)}>
            New keypair
          </Button>
        )
      }
      testId="keypairs"
    >
      {error ? (
        <ProblemAlert error={error} />
      ) : !keypairs ? (
        <Loading rows={2} />
      ) : keypairs.length === 0 ? (
        <EmptyState title="No keypairs">Without an active keypair the user cannot sign in. Create one to let them in.</EmptyState>
      ) : (
        <TableContainer>
          <Table size="small" aria-label="Keypairs">
            <TableHead>
              <TableRow>
                <TableCell>Access key</TableCell>
                <TableCell>State</TableCell>
                <TableCell>Rate limit</TableCell>
                <TableCell>Policy</TableCell>
                <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>Requests</TableCell>
                <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>Last used</TableCell>
                {!readOnly && <TableCell align="right">Actions</TableCell>}
              </TableRow>
            </TableHead>
            <TableBody>
              {keypairs.map((k) => (
                <TableRow key={k.id} hover>
                  <TableCell sx={{ fontFamily: MONO, whiteSpace: 'nowrap' }}>
                    {k.hint}
                    <Stack direction="row" spacing={0.5} component="span" sx={{ ml: 1, display: 'inline-flex' }}>
                      {k.is_main && <Chip size="small" label="main" variant="outlined" />}
                      {k.is_admin && <Chip size="small" label="admin" color="primary" variant="outlined" />}
                    </Stack>
                  </TableCell>
                  <TableCell>
                    <Chip size="small" label={k.is_active ? 'Active' : 'Inactive'} color={k.is_active ? 'success' : 'default'} variant={k.is_active ? 'filled' : 'outlined'} />
                  </TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{k.rate_limit === null ? 'Unlimited' : `${k.rate_limit.toLocaleString()} / 15 min`}</TableCell>
                  <TableCell>{k.resource_policy}</TableCell>
                  <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>{k.num_queries.toLocaleString()}</TableCell>
                  <TableCell sx={{ display: { xs: 'none', md: 'table-cell' }, whiteSpace: 'nowrap' }}>{k.last_used ? formatRelative(k.last_used) : 'Never'}</TableCell>
                  {!readOnly && (
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      <Button size="small" onClick={() => setLimiting(k)}>
                        Rate limit
                      </Button>
                      <Button size="small" onClick={() => setApplying(k)} aria-label={`Resource policy of ${k.hint}`}>
                        Policy
                      </Button>
                      <Button size="small" color={k.is_active ? 'error' : 'primary'} onClick={() => setToggling(k)}>
                        {k.is_active ? 'Deactivate' : 'Activate'}
                      </Button>
                    </TableCell>
                  )}
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      <CreateKeypairDialog
        key={creating.isOpen ? 'open' : 'closed'}
        email={email}
        open={creating.isOpen}
        onClose={creating.close}
        onCreated={creating.done((hint) => onSaved(`Keypair ${hint} is created.`))}
      />
      <PolicyDialog key={`policy-${applying?.id ?? 'none'}`} email={email} keypair={applying} onClose={() => setApplying(null)} onSaved={(policy) => onSaved(`Applied the policy ${policy}.`)} />
      <RateLimitDialog key={limiting?.id ?? 'none'} email={email} keypair={limiting} onClose={() => setLimiting(null)} onSaved={() => onSaved('The rate limit is saved.')} />
      <ConfirmDialog
        open={toggling !== null}
        title={toggling?.is_active ? `Deactivate ${toggling.hint}?` : `Activate ${toggling?.hint ?? ''}?`}
        confirmLabel={toggling?.is_active ? 'Deactivate' : 'Activate'}
        danger={Boolean(toggling?.is_active)}
        onConfirm={async () => {
          await modifyKeypair(email, toggling!.id, { is_active: !toggling!.is_active });
          onSaved(toggling!.is_active ? `${toggling!.hint} is deactivated.` : `${toggling!.hint} is active again.`);
        }}
        onClose={() => setToggling(null)}
      >
        <Typography variant="body2">
          {toggling?.is_active
            ? activeCount <= 1
              ? 'This is the user’s last active keypair: they will not be able to sign in or call the API until a keypair is active again.'
              : 'Requests signed with this keypair will be refused. The user keeps signing in with their other active keypair.'
            : 'Requests signed with this keypair will be accepted again.'}
        </Typography>
      </ConfirmDialog>
    </SectionCard>
  );
}
