'use client';
/**
 * The launcher's folder picker: the folders you own and those shared with you (GET /folders), each to mount into
 * the session, at /home/work/<name> or a path of your choosing below /home/work. Folders are named by id in the
 * request, so an own folder and a shared one with the same name cannot be confused.
 */
import NextLink from 'next/link';
import Box from '@mui/material/Box';
import Checkbox from '@mui/material/Checkbox';
import Chip from '@mui/material/Chip';
import FormControlLabel from '@mui/material/FormControlLabel';
import Link from '@mui/material/Link';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { isMountable, PERMISSION_LABELS, useFolders, type FolderSummary } from '@/components/folders/useFolders';
import { ProblemAlert, useDelayed } from './common';

const KERNEL_HOME = '/home/work';

/** Chosen folders: folder id → the path it is mounted at inside the session. */
export type MountChoice = Record<string, string>;

export const defaultMountPath = (folder: Pick<FolderSummary, 'name'>) => `${KERNEL_HOME}/${folder.name}`;

const inside = (path: string, other: string) => path === other || path.startsWith(`${other}/`);

/** What is wrong with each chosen path (the manager checks the same; saying it here keeps the form in place). */
export function mountPathProblems(choice: MountChoice): Record<string, string | null> {
  const normalized = Object.fromEntries(Object.entries(choice).map(([id, path]) => [id, path.trim().replace(/\/+$/, '')]));
  return Object.fromEntries(
    Object.entries(normalized).map(([id, path]) => {
      if (!path.startsWith(`${KERNEL_HOME}/`) || path.length <= KERNEL_HOME.length + 1) return [id, `Use a path below ${KERNEL_HOME}.`];
      if (path.split('/').includes('..')) return [id, 'The path may not contain "..".'];
      const clash = Object.entries(normalized).some(([other, otherPath]) => other !== id && (inside(path, otherPath) || inside(otherPath, path)));
      return [id, clash ? 'Overlaps the path of another folder.' : null];
    }),
  );
}

function owner(folder: FolderSummary): string {
  if (folder.is_owner) return 'Yours';
  return folder.type === 'group' ? `Project ${folder.group_name ?? ''}` : `Shared by ${folder.user_email ?? 'another user'}`;
}

export function MountPicker({ value, onChange }: { value: MountChoice; onChange: (value: MountChoice) => void }) {
  const { data, error } = useFolders();
  const loading = useDelayed(!data && !error);
  const folders = (data ?? []).filter(isMountable).sort((a, b) => Number(b.is_owner) - Number(a.is_owner) || a.name.localeCompare(b.name));
  const problems = mountPathProblems(value);

  function toggle(folder: FolderSummary, on: boolean) {
    const next = { ...value };
    if (on) next[folder.id] = defaultMountPath(folder);
    else delete next[folder.id];
    onChange(next);
  }

  if (error && !data) return <ProblemAlert error={error} />;
  if (!data) return loading ? <Skeleton variant="rounded" height={56} /> : <Box sx={{ height: 56 }} />;
  if (folders.length === 0) {
    return (
      <Typography variant="body2" color="text.secondary" data-testid="mount-empty">
        You have no folders to mount yet.{' '}
        <Link component={NextLink} href="/folders">
          Create one on the Folders page
        </Link>
        , upload your data into it, and it appears here.
      </Typography>
    );
  }
  return (
    <Stack spacing={1} role="group" aria-label="Folders to mount">
      {folders.map((folder) => {
        const chosen = folder.id in value;
        return (
          <Stack key={folder.id} direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: { sm: 'center' } }} data-testid="mount-option" data-folder={folder.name}>
            <FormControlLabel
              sx={{ flex: 1, minWidth: 0, mr: 0 }}
              control={<Checkbox checked={chosen} onChange={(e) => toggle(folder, e.target.checked)} slotProps={{ input: { 'aria-label': `Mount ${folder.name}` } }} />}
              label={
                <Stack direction="row" spacing={1} sx={{ alignItems: 'center', minWidth: 0 }}>
                  <Typography noWrap sx={{ fontWeight: 600 }}>
                    {folder.name}
                  </Typography>
                  <Typography variant="body2" color="text.secondary" noWrap>
                    {owner(folder)}
                  </Typography>
                  <Chip size="small" variant="outlined" label={PERMISSION_LABELS[folder.permission] ?? folder.permission} />
                </Stack>
              }
            />
            {chosen && (
              <TextField
                size="small"
                label={`Path of ${folder.name}`}
                value={value[folder.id]}
                onChange={(e) => onChange({ ...value, [folder.id]: e.target.value })}
                error={Boolean(problems[folder.id])}
                helperText={problems[folder.id] ?? undefined}
                slotProps={{ htmlInput: { spellCheck: false, autoComplete: 'off', style: { fontFamily: 'monospace' } } }}
                sx={{ width: { xs: '100%', sm: 320 } }}
              />
            )}
          </Stack>
        );
      })}
    </Stack>
  );
}
