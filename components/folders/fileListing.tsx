'use client';
/** Parts of a file listing that a folder's browser and a session's files both show. */
import Breadcrumbs, { type BreadcrumbsProps } from '@mui/material/Breadcrumbs';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TableCell from '@mui/material/TableCell';
import { FileIcon, FolderIcon } from '@/components/frame/icons';

/** The name cell: an icon for the kind, and directories open on click. */
export function FileNameCell({ name, isDir, onOpen }: { name: string; isDir: boolean; onOpen: () => void }) {
  return (
    <TableCell>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        {isDir ? <FolderIcon fontSize="small" color="primary" /> : <FileIcon fontSize="small" color="action" />}
        {isDir ? (
          <Link component="button" type="button" underline="hover" onClick={onOpen}>
            {name}
          </Link>
        ) : (
          <span>{name}</span>
        )}
      </Stack>
    </TableCell>
  );
}

/**
 * The path to the directory shown, each step a button that opens it; `root` names the top. With `markCurrent`
 * the last step is announced as the current location.
 */
export function PathBreadcrumbs({
  label,
  root,
  dir,
  onOpen,
  markCurrent = false,
  sx,
}: {
  label: string;
  root: string;
  dir: string;
  onOpen: (dir: string) => void;
  markCurrent?: boolean;
  sx?: BreadcrumbsProps['sx'];
}) {
  const segments = dir ? dir.split('/') : [];
  return (
    <Breadcrumbs aria-label={label} sx={sx}>
      <Link component="button" type="button" underline="hover" onClick={() => onOpen('')} color={dir ? 'inherit' : 'text.primary'}>
        {root}
      </Link>
      {segments.map((segment, i) => (
        <Link
          key={i}
          component="button"
          type="button"
          underline="hover"
          color={i === segments.length - 1 ? 'text.primary' : 'inherit'}
          onClick={() => onOpen(segments.slice(0, i + 1).join('/'))}
          aria-current={markCurrent && i === segments.length - 1 ? 'location' : undefined}
        >
          {segment}
        </Link>
      ))}
    </Breadcrumbs>
  );
}
