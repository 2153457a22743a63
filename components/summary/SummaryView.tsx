'use client';
/**
 * The start page: the caller's running sessions, their resources against their limits and the cluster's
 * capacity, then who is signed in and which manager answers.
 */
import type { ReactNode } from 'react';
import Grid from '@mui/material/Grid';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { ManagerError } from '@/components/api/problem';
import { useCurrentUser } from '@/components/auth/CurrentUser';
import { Loading, ProblemAlert } from '@/components/ui/feedback';
import { useAccount } from '@/components/settings/useSettings';
import { CapacityPanel } from './CapacityPanel';
import { ResourcesPanel } from './ResourcesPanel';
import { FactRow } from '@/components/ui/FactRow';
import { SessionsPanel } from './SessionsPanel';
import { SummaryCard } from './SummaryCard';
import { useApiVersion, useRoles } from './useSummary';

function Field({ label, value, testId }: { label: string; value: ReactNode; testId?: string }) {
  return (
    <FactRow label={label} testId={testId} labelWidth={140} py={0.75}>
      {value}
    </FactRow>
  );
}

function Loaded<T>({ data, error, children }: { data: T | undefined; error: ManagerError | undefined; children: (data: T) => ReactNode }) {
  // Any error, not only the manager's: a fetch cut short (a navigation, a lost network) is a TypeError.
  if (error) return <ProblemAlert error={error} />;
  if (data === undefined) return <Loading rows={2} height={20} />;
  return <>{children(data)}</>;
}

export function SummaryView() {
  const user = useCurrentUser();
  const version = useApiVersion();
  const roles = useRoles();
  const account = useAccount();
  return (
    <Stack spacing={3}>
      <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }}>
        Summary
      </Typography>
      <Grid container spacing={3}>
        <Grid size={{ xs: 12, lg: 7 }}>
          <SessionsPanel />
        </Grid>
        <Grid size={{ xs: 12, lg: 5 }}>
          <ResourcesPanel />
        </Grid>
        <Grid size={12}>
          <CapacityPanel />
        </Grid>
        <Grid size={{ xs: 12, md: 6 }}>
          <SummaryCard title="Account">
            <Field label="Email" value={user.email ?? '—'} testId="user-email" />
            {user.email !== user.name && <Field label="Signed in as" value={user.name} />}
            <Loaded data={account.data} error={account.error}>
              {(a) => <Field label="Full name" value={a.user?.full_name || '—'} testId="user-full-name" />}
            </Loaded>
            <Field label="Role" value={user.role} testId="user-role" />
            <Loaded data={roles.data} error={roles.error}>
              {(r) => (
                <>
                  <Field label="Global role" value={r.global_role} />
                  <Field label="Domain role" value={r.domain_role} />
                </>
              )}
            </Loaded>
          </SummaryCard>
        </Grid>
        <Grid size={{ xs: 12, md: 6 }}>
          <SummaryCard title="Manager">
            <Loaded data={version.data} error={version.error}>
              {(v) => (
                <>
                  <Field label="API version" value={v.version} testId="api-version" />
                  <Field label="Manager version" value={v.manager} />
                </>
              )}
            </Loaded>
          </SummaryCard>
        </Grid>
      </Grid>
    </Stack>
  );
}
