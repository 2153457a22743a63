'use client';
/** The name cell of a file listing (a folder's or a session's): an icon for the kind, and directories open on click. */
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TableCell from '@mui/material/TableCell';
import { FileIcon, FolderIcon } from '@/components/frame/icons';

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
