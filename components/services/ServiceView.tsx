'use client';
/**
 * One model service: its URL and access, how many of its routes are ready (polled while routes provision), the
 * healthy routes with their traffic ratio, the failed starts with a way to clear them, and scale, token and delete.
 */
import { useState, type ReactNode } from 'react';
import NextLink from 'next/link';
import { useRouter } from 'next/navigation';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { FactRow } from '@/components/ui/FactRow';
import { EmptyState, Loading, ProblemAlert } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/PageHeader';
import { SectionCard } from '@/components/ui/SectionCard';
import { useSending } from '@/components/ui/useSending';
import { useToast } from '@/components/ui/useToast';
import { ArrowBackIcon, DeleteIcon, KeyIcon } from '@/components/frame/icons';
import { useFolder } from '@/components/folders/useFolders';
import { AccessChip, EndpointUrl } from './common';
import { ServiceDialogs, type ServiceAction } from './ServiceDialogs';
import { clearServiceErrors, routesLabel, useService, useServiceErrors, type ServeInfo } from './useServices';

const Fact = (props: { label: string; children: ReactNode; testId?: string }) => <FactRow {...props} labelWidth={140} py={0.5} />;

/** The model folder by name (its id while the name loads, or when the folder is gone). */
function ModelFolderLink({ id }: { id: string }) {
  const { data } = useFolder(id);
  return (
    <Link component={NextLink} href={`/folders/${id}`} underline="hover" sx={data ? undefined : { fontFamily: 'monospace' }} data-testid="service-model">
      {data?.name ?? id}
    </Link>
  );
}

function RoutesCard({ service }: { service: ServeInfo }) {
  const routes = service.active_routes;
  const provisioning = routes.length < service.desired_session_count;
  return (
    <SectionCard
      id="routes"
      title="Active routes"
      description="Healthy sessions serving the model; the endpoint sends each one a share of the calls in proportion to its traffic ratio."
    >
      {routes.length === 0 ? (
        <EmptyState title={provisioning ? 'Starting the model server…' : 'No routes'}>
          {provisioning
            ? 'Routes appear here once their session passes its health check. This page refreshes by itself.'
            : 'The service is scaled to 0. Scale it up to serve calls.'}
        </EmptyState>
      ) : (
        <TableContainer>
          <Table size="small" aria-label="Active routes">
            <TableHead>
              <TableRow>
                <TableCell>Route</TableCell>
                <TableCell>Session</TableCell>
                <TableCell align="right">Traffic ratio</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {routes.map((r) => (
                <TableRow key={r.route_id} data-testid="route-row">
                  <TableCell sx={{ fontFamily: 'monospace' }}>{r.route_id.slice(0, 8)}</TableCell>
                  <TableCell>
                    <Link component={NextLink} href={`/sessions/${r.session_id}`} underline="hover" sx={{ fontFamily: 'monospace' }}>
                      {r.session_id.slice(0, 8)}
                    </Link>
                  </TableCell>
                  <TableCell align="right">{r.traffic_ratio}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
    </SectionCard>
  );
}

function ErrorsCard({ service, polling, onCleared }: { service: ServeInfo; polling: boolean; onCleared: (message: string) => void }) {
  const { data, error, mutate } = useServiceErrors(service.endpoint_id, polling);
  const clearing = useSending();
  const errors = data?.errors ?? [];
  const clear = (
    <Button
      variant="outlined"
      size="small"
      disabled={clearing.pending || !data || (errors.length === 0 && data.retries === 0)}
      onClick={() =>
        void clearing.send(async () => {
          await clearServiceErrors(service.endpoint_id);
          await mutate();
          onCleared('Cleared the errors; the service tries again');
        })
      }
    >
      Clear errors
    </Button>
  );
  return (
    <SectionCard
      id="errors"
      title="Errors"
      testId="service-errors"
      description="Sessions that failed to start the model server. After 5 failures the service stops trying until the errors are cleared."
      actions={clear}
    >
      <ProblemAlert error={clearing.error} sx={{ mb: 2 }} />
      {error && !data ? (
        <ProblemAlert error={error} />
      ) : !data ? (
        <Loading rows={2} />
      ) : errors.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          No failed starts{data.retries ? ` (${data.retries} retries counted)` : ''}.
        </Typography>
      ) : (
        <Stack spacing={1}>
          <Typography variant="body2" color="text.secondary">
            {data.retries} failed {data.retries === 1 ? 'start' : 'starts'} counted.
          </Typography>
          {errors.map((e, i) => (
            <Box key={`${e.session_id}-${i}`} data-testid="service-error" sx={{ p: 1.5, borderRadius: 1, bgcolor: 'action.hover' }}>
              <Typography variant="body2" sx={{ fontWeight: 600 }}>
                {typeof e.error.name === 'string' ? e.error.name : 'Error'}
                {e.session_id && (
                  <Typography component="span" variant="body2" color="text.secondary" sx={{ ml: 1, fontFamily: 'monospace' }}>
                    session {e.session_id.slice(0, 8)}
                  </Typography>
                )}
              </Typography>
              <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
                {typeof e.error.repr === 'string' ? e.error.repr : JSON.stringify(e.error)}
              </Typography>
            </Box>
          ))}
        </Stack>
      )}
    </SectionCard>
  );
}

export function ServiceView({ serviceId }: { serviceId: string }) {
  const router = useRouter();
  const { data: service, error, mutate } = useService(serviceId);
  const [action, setAction] = useState<ServiceAction>(null);
  const [toast, showToast] = useToast();
  const back = (
    <Button component={NextLink} href="/services" startIcon={<ArrowBackIcon />} size="small" sx={{ mb: 1 }}>
      Services
    </Button>
  );
  if (!service) {
    return (
      <Box>
        {back}
        {error ? <ProblemAlert error={error} /> : <Loading rows={4} label="Loading the service" />}
      </Box>
    );
  }
  const routes = routesLabel(service.active_routes.length, service.desired_session_count);
  const provisioning = service.active_routes.length < service.desired_session_count;
  const actions = (
    <>
      <Button variant="outlined" onClick={() => setAction('scale')}>
        Scale
      </Button>
      <Button variant="outlined" startIcon={<KeyIcon />} onClick={() => setAction('token')}>
        Issue token
      </Button>
      <Button variant="outlined" color="error" startIcon={<DeleteIcon />} onClick={() => setAction('delete')}>
        Delete
      </Button>
    </>
  );

  return (
    <Box>
      {back}
      <PageHeader title={service.name} description="A model service: one URL, balanced across the sessions that serve the model." actions={actions} />
      <Stack spacing={3}>
        {error && <ProblemAlert error={error} severity="warning" />}
        <Card variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
          <Fact label="Endpoint">
            <EndpointUrl url={service.service_endpoint} />
          </Fact>
          <Fact label="Access">
            <AccessChip isPublic={service.is_public} />
          </Fact>
          <Fact label="Routes">
            <Chip size="small" color={routes.color} label={routes.text} data-testid="service-routes" data-active={service.active_routes.length} />
          </Fact>
          <Fact label="Replicas" testId="service-desired">
            {service.desired_session_count}
          </Fact>
          <Fact label="Model folder">
            <ModelFolderLink id={service.model_id.replace(/-/g, '')} />
          </Fact>
          {service.model_definition_path && <Fact label="Model definition">{service.model_definition_path}</Fact>}
        </Card>
        <RoutesCard service={service} />
        <ErrorsCard service={service} polling={provisioning} onCleared={showToast} />
      </Stack>
      <ServiceDialogs
        service={service}
        action={action}
        onClose={() => setAction(null)}
        onDone={async (message) => {
          await mutate();
          showToast(message);
        }}
        onDeleted={() => router.push('/services')}
      />
      {toast}
    </Box>
  );
}
