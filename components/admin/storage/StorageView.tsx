'use client';
/**
 * Storage: each storage host with its capacity, folders with their size (those the admin reaches, paged on the
 * server; superadmins may name a user to see that user's), and a folder's quota scope (its usage and limit, which
 * superadmins change).
 */
import { useState } from 'react';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useCurrentUser } from '@/components/auth/CurrentUser';
import { EditIcon } from '@/components/frame/icons';
import { SearchField } from '@/components/ui/SearchField';
import { DataTable, type Column, type SortState } from '@/components/ui/DataTable';
import { EmptyState, Loaded } from '@/components/ui/feedback';
import { FormDialog } from '@/components/ui/FormDialog';
import { PageHeader } from '@/components/ui/PageHeader';
import { SectionCard } from '@/components/ui/SectionCard';
import { RowAction } from '@/components/ui/tableParts';
import { useToast } from '@/components/ui/useToast';
import { usePaging } from '@/components/ui/usePaging';
import { formatBytes } from '../format';
import { setQuota, useFolders, useFoldersOf, useHosts, useQuotaScope, useVolumes, type AdminFolder } from './useStorage';

interface HostRow {
  host: string;
  backend: string;
  path: string | null;
  used: number | null;
  total: number | null;
  isDefault: boolean;
}

const HOST_COLUMNS: Column<HostRow>[] = [
  { key: 'host', label: 'Host', render: (h) => <>{h.host} {h.isDefault && <Chip size="small" label="default" variant="outlined" sx={{ ml: 1 }} />}</>, sortValue: (h) => h.host },
  { key: 'backend', label: 'Backend', render: (h) => h.backend, sortValue: (h) => h.backend },
  { key: 'path', label: 'Path', render: (h) => h.path ?? '—', wide: true },
  {
    key: 'capacity',
    label: 'Capacity',
    sortValue: (h) => (h.total ? (h.used ?? 0) / h.total : null),
    render: (h) =>
      h.total ? (
        <Box sx={{ minWidth: 160 }}>
          <LinearProgress variant="determinate" value={Math.min(100, ((h.used ?? 0) / h.total) * 100)} aria-label={`Used space of ${h.host}`} />
          <Typography variant="caption" color="text.secondary">
            {formatBytes(h.used ?? 0)} of {formatBytes(h.total)} used
          </Typography>
        </Box>
      ) : (
        'unknown'
      ),
  },
];

function QuotaDialog({ folder, canEdit, onClose, onSaved }: { folder: AdminFolder | null; canEdit: boolean; onClose: () => void; onSaved: () => void }) {
  const { data, error } = useQuotaScope(folder?.host ?? null, folder?.quota_scope_id ?? null);
  const [gib, setGib] = useState('');
  const scope = data?.quota_scope;
  const valid = /^\d+(\.\d+)?$/.test(gib.trim());
  return (
    <FormDialog
      open={folder !== null}
      title={`Quota scope of ${folder?.name ?? ''}`}
      submitLabel="Save limit"
      hideSubmit={!canEdit}
      cancelLabel={canEdit ? 'Cancel' : 'Close'}
      submitDisabled={!valid}
      onOpen={() => setGib('')}
      onSubmit={async () => {
        await setQuota(folder!.host, folder!.quota_scope_id!, Math.round(Number(gib) * 1024 ** 3));
        onSaved();
      }}
      onClose={onClose}
    >
      <Typography variant="body2" sx={{ fontFamily: 'monospace' }}>
        {folder?.host} / {folder?.quota_scope_id}
      </Typography>
      <Loaded error={error} data={scope} rows={2}>
        {(scope) => (
          <Stack spacing={0.5} data-testid="quota-scope">
            <Typography variant="body2">Used: {formatBytes(scope.details.usage_bytes ?? 0)} in {scope.details.usage_count ?? 0} files</Typography>
            <Typography variant="body2">Limit: {scope.details.hard_limit_bytes ? formatBytes(scope.details.hard_limit_bytes) : 'none'}</Typography>
          </Stack>
        )}
      </Loaded>
      {canEdit && (
        <TextField label="New limit (GiB)" value={gib} onChange={(e) => setGib(e.target.value)} helperText="0 drops this scope's own limit (the resource policy's maximum applies)." slotProps={{ htmlInput: { inputMode: 'decimal' } }} />
      )}
    </FormDialog>
  );
}

const PAGE_SIZES = [25, 50, 100];

export function StorageView() {
  const me = useCurrentUser();
  const superadmin = me.role === 'superadmin';
  const hosts = useHosts();
  const volumes = useVolumes(superadmin);
  const [search, setSearch] = useState('');
  const { page, pageSize, setPage, pager } = usePaging(PAGE_SIZES);
  const [sort, setSort] = useState<SortState | null>(null);
  const folders = useFolders({ search, page, pageSize, order: sort ? `${sort.direction === 'desc' ? '-' : '+'}${sort.key}` : 'name' });
  const [owner, setOwner] = useState('');
  const ownerEmail = superadmin && owner.includes('@') ? owner.trim() : null;
  const ofOwner = useFoldersOf(ownerEmail);
  const ownerRows = ofOwner.data?.filter((f) => f.name.toLowerCase().includes(search.trim().toLowerCase()));
  const [quota, setQuotaFolder] = useState<AdminFolder | null>(null);
  const [toast, notify] = useToast();

  const hostRows: HostRow[] | undefined = hosts.data && [
    ...new Set([...hosts.data.allowed, ...(volumes.data?.storage_volume_list.items ?? []).map((v) => v.id)]),
  ].sort().map((host) => {
    const info = hosts.data!.volume_info[host];
    const volume = volumes.data?.storage_volume_list.items.find((v) => v.id === host);
    return { host, backend: info?.backend ?? volume?.backend ?? '—', path: volume?.path ?? null, used: info?.usage?.used ?? null, total: info?.usage?.total ?? null, isDefault: hosts.data!.default === host };
  });

  const folderColumns: Column<AdminFolder>[] = [
    { key: 'name', label: 'Folder', render: (f) => f.name, serverSortable: true, sortValue: (f) => f.name },
    { key: 'host', label: 'Host', render: (f) => f.host, serverSortable: true, sortValue: (f) => f.host },
    { key: 'owner', label: 'Owner', render: (f) => (f.ownership_type === 'group' ? `project ${f.group_name ?? ''}` : (f.user_email ?? '—')) },
    { key: 'status', label: 'Status', render: (f) => f.status, wide: true },
    { key: 'cur_size', label: 'Size', render: (f) => formatBytes(f.cur_size ?? 0), align: 'right', serverSortable: true, sortValue: (f) => f.cur_size },
    {
      key: 'quota',
      label: 'Quota scope',
      render: (f) => (f.quota_scope_id ? <RowAction title="Quota scope" label={`Quota scope of ${f.name}`} icon={<EditIcon fontSize="small" />} onClick={() => setQuotaFolder(f)} size="small" /> : '—'),
      align: 'right',
    },
  ];

  const folderFilters = (
    <Stack direction="row" spacing={2} sx={{ p: 2, pb: 1 }}>
      <SearchField value={search} onChange={setSearch} onPage={setPage} />
      {superadmin && <TextField size="small" label="Owner's email" value={owner} onChange={(e) => setOwner(e.target.value)} helperText="Empty: the folders you reach." />}
    </Stack>
  );

  return (
    <>
      <PageHeader title="Storage" description="Storage hosts and their capacity, and every folder's size and quota scope." />
      <Stack spacing={3}>
        <SectionCard id="storage-hosts" title="Storage hosts">
          <DataTable label="Storage hosts" testId="storage-hosts-table" columns={HOST_COLUMNS} rowKey={(h) => h.host} rows={hostRows} error={hosts.error ?? volumes.error} empty={<EmptyState title="No storage hosts" />} />
        </SectionCard>
        <SectionCard id="storage-folders" title="Folders" description="The manager lists folders by who reaches them: yours, or (superadmins) one user's.">
          {ownerEmail ? (
            <DataTable
              key={ownerEmail}
              label="Folders"
              testId="storage-folders-table"
              columns={folderColumns}
              rowKey={(f) => f.id}
              rows={ownerRows}
              error={ofOwner.error}
              empty={<EmptyState title={`No folders of ${ownerEmail}`} />}
              toolbar={folderFilters}
            />
          ) : (
            <DataTable
              label="Folders"
              testId="storage-folders-table"
              columns={folderColumns}
              rowKey={(f) => f.id}
              rows={folders.data?.vfolder_list.items}
              total={folders.data?.vfolder_list.total_count ?? 0}
              error={folders.error}
              {...pager}
              sort={sort}
              onSort={setSort}
              empty={<EmptyState title="No folders" />}
              toolbar={folderFilters}
            />
          )}
        </SectionCard>
      </Stack>
      <QuotaDialog
        folder={quota}
        canEdit={superadmin}
        onClose={() => setQuotaFolder(null)}
        onSaved={() => {
          setQuotaFolder(null);
          notify('Saved the quota.');
        }}
      />
      {toast}
    </>
  );
}
