'use client';
/** The start page: who is signed in, with which roles, and which manager and API version answer. */
import type { ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Grid from '@mui/material/Grid';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { ManagerError } from '@/components/api/problem';
import { useCurrentUser } from '@/components/auth/CurrentUser';
import { useApiVersion, useRoles } from './useSummary';

function Field({ label, value, testId }: { label: string; value: ReactNode; testId?: string }) {
  return (
    <Stack direction="row" spacing={2} sx={{ py: 0.75 }}>
      <Typography variant="body2" color="text.secondary" sx={{ width: 140, flexShrink: 0 }}>
        {label}
      </Typography>
      <Typography variant="body2" component="div" data-testid={testId} sx={{ minWidth: 0, overflowWrap: 'anywhere' }}>
        {value}
      </Typography>
    </Stack>
  );
}

function Loaded<T>({ data, error, children }: { data: T | undefined; error: ManagerError | undefined; children: (data: T) => ReactNode }) {
  if (error) {
    return (
      <Alert severity="error">
        <AlertTitle>{error.problem.title ?? 'Request failed'}</AlertTitle>
        {error.problem.detail}
      </Alert>
    );
  }
  if (data === undefined) return <Skeleton width="60%" />;
  return <>{children(data)}</>;
}

function SummaryCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card variant="outlined" sx={{ height: '100%' }}>
      <CardContent>
        <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1 }}>
          {title}
        </Typography>
        {children}
      </CardContent>
    </Card>
  );
}

export function SummaryView() {
  const user = useCurrentUser();
  const version = useApiVersion();
  const roles = useRoles();
  return (
    <Stack spacing={3}>
      <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }}>
        Summary
      </Typography>
      <Grid container spacing={3}>
        <Grid size={{ xs: 12, md: 6 }}>
          <SummaryCard title="Account">
            <Field label="Email" value={user.email ?? '—'} testId="user-email" />
            {user.email !== user.name && <Field label="Signed in as" value={user.name} />}
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
