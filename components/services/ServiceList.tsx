'use client';
/**
 * The model services page: your services with how many of their routes are ready, the URL that serves each one
 * (to copy), whether callers need a token, and a new service.
 */
import NextLink from 'next/link';
import { useRouter } from 'next/navigation';
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import { EmptyState } from '@/components/ui/feedback';
import { RowsTable } from '@/components/ui/RowsTable';
import { ServicesIcon } from '@/components/frame/icons';
import { AccessChip, EndpointUrl } from './common';
import { CreateServiceDialog } from './CreateServiceDialog';
import { routesLabel, useServices, type ServiceSummary } from './useServices';
import { useDialogTarget } from '@/components/ui/useDialogTarget';
import { ListPage } from '@/components/ui/ListPage';

function ServiceRow({ service }: { service: ServiceSummary }) {
  const routes = routesLabel(service.active_route_count, service.desired_session_count);
  return (
    <TableRow hover data-testid="service-row" data-service={service.name}>
      <TableCell>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <ServicesIcon fontSize="small" color="primary" />
          <Link component={NextLink} href={`/services/${service.id}`} underline="hover" sx={{ fontWeight: 600 }}>
            {service.name}
          </Link>
        </Stack>
      </TableCell>
      <TableCell>
        <Chip size="small" color={routes.color} label={routes.text} data-testid="service-routes" />
      </TableCell>
      <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>
        <EndpointUrl url={service.service_endpoint} />
      </TableCell>
      <TableCell>
        <AccessChip isPublic={service.is_public} />
      </TableCell>
    </TableRow>
  );
}

export function ServiceList() {
  const router = useRouter();
  const { data, error, isLoading, mutate } = useServices();
  const creating = useDialogTarget();
  const services = [...(data ?? [])].sort((a, b) => a.name.localeCompare(b.name));

  return (
    <ListPage title="Model services" description="Serve a model from a model folder at one URL, balanced across the sessions that run it." newLabel="New service" onNew={() => creating.open(true)}>
      {(newButton) => (
        <>
          <RowsTable
            label="Model services"
            rows={data ? services : undefined}
            error={error}
            isLoading={isLoading}
            colSpan={4}
            empty={
              <Card variant="outlined">
                <EmptyState title="No model services yet" icon={<ServicesIcon color="action" sx={{ fontSize: 48 }} />} action={newButton}>
                  Put a model and its model-definition.yaml in a folder with usage “Model”, then create a service from it: Berth starts the server in
                  inference sessions and publishes it at one URL.
                </EmptyState>
              </Card>
            }
            head={
              <>
                <TableCell>Name</TableCell>
                <TableCell>Routes</TableCell>
                <TableCell sx={{ display: { xs: 'none', md: 'table-cell' } }}>Endpoint</TableCell>
                <TableCell>Access</TableCell>
              </>
            }
          >
            {(rows) => rows.map((s) => <ServiceRow key={s.id} service={s} />)}
          </RowsTable>
          <CreateServiceDialog
            open={creating.isOpen}
            onClose={creating.close}
            onCreated={creating.done((service) => {
              void mutate();
              router.push(`/services/${service.endpoint_id}`);
            })}
          />
        </>
      )}
    </ListPage>
  );
}
