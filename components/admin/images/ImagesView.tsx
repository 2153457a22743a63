'use client';
/**
 * Images: the catalog (name, tag, aliases, size, architecture, the agents that have it) and users' customized
 * images. Superadmins alias and dealias, forget, rescan the local registry and import (convert) an image.
 */
import { useState } from 'react';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useCurrentUser } from '@/components/auth/CurrentUser';
import { AddIcon, DeleteIcon, RefreshIcon } from '@/components/frame/icons';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { actionsColumn, DataTable, type Column } from '@/components/ui/DataTable';
import { EmptyState, ProblemAlert } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/PageHeader';
import { SectionCard } from '@/components/ui/SectionCard';
import { RowAction } from '@/components/ui/tableParts';
import { useSending } from '@/components/ui/useSending';
import { useToast } from '@/components/ui/useToast';
import { formatBytes } from '../format';
import { ImportImageDialog } from './ImportImageDialog';
import { aliasImage, dealiasImage, forgetImage, rescanImages, useImages, type AdminImage } from './useImages';
import { useDialogTarget } from '@/components/ui/useDialogTarget';
import { TextDialog } from '@/components/ui/TextDialog';

const ALIAS = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;

function AliasDialog({ image, onClose, onSaved }: { image: AdminImage | null; onClose: () => void; onSaved: (alias: string) => void }) {
  return (
    <TextDialog
      open={image !== null}
      title={`New alias for ${image?.name ?? ''}`}
      label="Alias"
      initial=""
      confirmLabel="Add alias"
      problemOf={(alias) => (ALIAS.test(alias) ? null : 'Letters, digits and . _ : / -; at most 128.')}
      helperText="Sessions may be started with this name instead."
      onSubmit={async (alias) => {
        await aliasImage(alias, image!.name, image!.architecture);
        onSaved(alias);
      }}
      onClose={onClose}
    />
  );
}

type Pending = { action: 'dealias'; alias: string } | { action: 'forget'; image: AdminImage } | null;

export function ImagesView() {
  const { data, error } = useImages();
  const me = useCurrentUser();
  const superadmin = me.role === 'superadmin';
  const aliasing = useDialogTarget<AdminImage>();
  const [pending, setPending] = useState<Pending>(null);
  const importing = useDialogTarget();
  const rescan = useSending();
  const [toast, notify] = useToast();

  const columns: Column<AdminImage>[] = [
    { key: 'name', label: 'Image', render: (i) => <Typography variant="body2" sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}>{i.name}</Typography>, sortValue: (i) => i.name },
    {
      key: 'aliases',
      label: 'Aliases',
      render: (i) => (
        <Stack direction="row" spacing={0.5} sx={{ flexWrap: 'wrap', rowGap: 0.5 }}>
          {(i.aliases ?? []).map((a) => (
            <Chip key={a} size="small" label={a} onDelete={superadmin ? () => setPending({ action: 'dealias', alias: a }) : undefined} />
          ))}
        </Stack>
      ),
      sortValue: (i) => i.aliases?.[0] ?? null,
    },
    { key: 'arch', label: 'Architecture', render: (i) => i.architecture, sortValue: (i) => i.architecture, wide: true },
    { key: 'size', label: 'Size', render: (i) => (i.size_bytes ? formatBytes(i.size_bytes) : '—'), sortValue: (i) => i.size_bytes, align: 'right', wide: true },
    { key: 'agents', label: 'Installed on', render: (i) => (i.installed_agents?.length ? i.installed_agents.join(', ') : 'every agent'), wide: true },
  ];
  if (superadmin)
    columns.push(
      actionsColumn<AdminImage>((i) => (
        <>
          <RowAction title="Add alias" label={`Add an alias for ${i.name}`} icon={<AddIcon fontSize="small" />} onClick={() => aliasing.open(i)} size="small" />
          <RowAction title="Forget" label={`Forget ${i.name}`} icon={<DeleteIcon fontSize="small" />} onClick={() => setPending({ action: 'forget', image: i })} size="small" />
        </>
      )),
    );

  return (
    <>
      <PageHeader
        title="Images"
        description="The container images sessions start from. An alias is a short name for an image; forgetting an image removes it from the catalog (not from the agents)."
        actions={
          superadmin && (
            <>
              <Button
                variant="outlined"
                startIcon={<RefreshIcon />}
                disabled={rescan.pending}
                onClick={() => void rescan.send(async () => { await rescanImages(); notify('Rescanning the local registry.'); })}
              >
                Rescan
              </Button>
              <Button variant="contained" onClick={() => importing.open(true)}>
                Import
              </Button>
            </>
          )
        }
      />
      <ProblemAlert error={rescan.error} onClose={() => rescan.setError(null)} sx={{ mb: 2 }} />
      <Stack spacing={3}>
        <DataTable
          label="Images"
          testId="images-table"
          columns={columns}
          rowKey={(i) => `${i.name}@${i.architecture}`}
          rows={data ? (data.images ?? []) : undefined}
          error={error}
          empty={<EmptyState title="No images">Rescan the registry or import an image.</EmptyState>}
        />
        <SectionCard id="customized-images" title="Customized images" description="Images users committed from a session or imported.">
          <DataTable
            label="Customized images"
            testId="customized-images-table"
            columns={columns.filter((c) => c.key !== 'agents')}
            rowKey={(i) => `${i.name}@${i.architecture}`}
            rows={data ? (data.customized_images ?? []) : undefined}
            error={error}
            empty={<EmptyState title="No customized images" />}
          />
        </SectionCard>
      </Stack>
      <AliasDialog
        image={aliasing.target}
        onClose={aliasing.close}
        onSaved={aliasing.done((alias) => notify(`Added the alias ${alias}.`))}
      />
      <ConfirmDialog
        open={pending !== null}
        title={pending?.action === 'dealias' ? `Remove the alias ${pending.alias}?` : pending ? `Forget ${pending.image.name}?` : ''}
        confirmLabel={pending?.action === 'dealias' ? 'Remove alias' : 'Forget'}
        danger
        onConfirm={async () => {
          if (pending?.action === 'dealias') {
            await dealiasImage(pending.alias);
            notify(`Removed the alias ${pending.alias}.`);
          } else if (pending) {
            await forgetImage(pending.image.name, pending.image.architecture);
            notify(`Forgot ${pending.image.name}.`);
          }
        }}
        onClose={() => setPending(null)}
      >
        {pending?.action === 'dealias' ? 'Sessions can no longer be started by this name.' : 'The image leaves the catalog; sessions can no longer start from it until a rescan finds it again.'}
      </ConfirmDialog>
      <ImportImageDialog
        open={importing.isOpen}
        onClose={importing.close}
        onStarted={importing.done((sessionId) => notify(`Import started in session ${sessionId}.`))}
      />
      {toast}
    </>
  );
}
