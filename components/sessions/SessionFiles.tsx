'use client';
/** The session's /home/work: browse directories, upload with progress (≤20 files of ≤1 MiB), download files. */
import { useRef, useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import type { ManagerError } from '@/components/api/problem';
import { DownloadIcon, RefreshIcon, UploadIcon } from '@/components/frame/icons';
import { ProblemAlert, useDelayed } from './common';
import { formatBytes } from './model';
import { downloadUrl, MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES, uploadFiles, useSessionFiles } from './useSessions';
import { SkeletonRows } from '@/components/ui/tableParts';
import { FileNameCell, PathBreadcrumbs } from '@/components/folders/fileListing';

const join = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);

export function SessionFiles({ sessionId }: { sessionId: string }) {
  const [dir, setDir] = useState('');
  const { data, error, isLoading, mutate } = useSessionFiles(sessionId, dir, true);
  const showSkeleton = useDelayed(isLoading && !data);
  const input = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [uploadError, setUploadError] = useState<ManagerError | Error | null>(null);
  const [uploaded, setUploaded] = useState<string | null>(null);

  const entries = [...(data?.files ?? [])].sort((a, b) => Number(b.mode.startsWith('d')) - Number(a.mode.startsWith('d')) || a.filename.localeCompare(b.filename));

  async function upload(list: FileList | null): Promise<void> {
    const files = [...(list ?? [])];
    if (input.current) input.current.value = '';
    if (files.length === 0) return;
    setUploaded(null);
    setUploadError(null);
    const tooBig = files.filter((f) => f.size > MAX_UPLOAD_BYTES);
    if (files.length > MAX_UPLOAD_FILES) {
      setUploadError(new Error(`Upload at most ${MAX_UPLOAD_FILES} files at a time.`));
      return;
    }
    if (tooBig.length) {
      setUploadError(new Error(`${tooBig.map((f) => f.name).join(', ')}: a file may be at most ${formatBytes(MAX_UPLOAD_BYTES)} here. Use a folder for larger files.`));
      return;
    }
    setProgress(0);
    try {
      await uploadFiles(sessionId, dir, files, setProgress);
      setUploaded(files.length === 1 ? `Uploaded ${files[0].name}.` : `Uploaded ${files.length} files.`);
      await mutate();
    } catch (err) {
      setUploadError(err as ManagerError);
    } finally {
      setProgress(null);
    }
  }

  return (
    <Stack spacing={2}>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: { sm: 'center' }, justifyContent: 'space-between' }}>
        <PathBreadcrumbs label="Folder" root="/home/work" dir={dir} onOpen={setDir} />
        <Stack direction="row" spacing={1}>
          <Tooltip title="Refresh">
            <IconButton onClick={() => void mutate()} aria-label="Refresh files">
              <RefreshIcon />
            </IconButton>
          </Tooltip>
          <Button variant="outlined" startIcon={<UploadIcon />} onClick={() => input.current?.click()} disabled={progress !== null}>
            Upload
          </Button>
          <input ref={input} type="file" multiple hidden onChange={(e) => void upload(e.target.files)} data-testid="file-upload-input" />
        </Stack>
      </Stack>

      {progress !== null && (
        <Box>
          <LinearProgress variant="determinate" value={Math.round(progress * 100)} aria-label="Upload progress" />
          <Typography variant="caption" color="text.secondary">
            Uploading… {Math.round(progress * 100)}%
          </Typography>
        </Box>
      )}
      {uploadError && <ProblemAlert error={uploadError} />}
      {uploaded && (
        <Alert severity="success" onClose={() => setUploaded(null)}>
          {uploaded}
        </Alert>
      )}
      {error && <ProblemAlert error={error} />}

      {data && entries.length === 0 && <Typography color="text.secondary">This folder is empty. Upload files, or create them from the terminal.</Typography>}
      {(entries.length > 0 || showSkeleton) && (
        <Table size="small" aria-label="Files">
          <TableHead>
            <TableRow>
              <TableCell>Name</TableCell>
              <TableCell align="right">Size</TableCell>
              <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' } }}>Modified</TableCell>
              <TableCell align="right">
                <Box component="span" sx={{ position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' }}>
                  Actions
                </Box>
              </TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {!data &&
              <SkeletonRows colSpan={4} />}
            {entries.map((entry) => {
              const isDir = entry.mode.startsWith('d');
              const target = join(dir, entry.filename);
              return (
                <TableRow key={entry.filename} hover data-testid="file-row" data-name={entry.filename}>
                  <FileNameCell name={entry.filename} isDir={isDir} onOpen={() => setDir(target)} />
                  <TableCell align="right">{isDir ? '—' : formatBytes(entry.size)}</TableCell>
                  <TableCell sx={{ display: { xs: 'none', sm: 'table-cell' } }}>{new Date(entry.mtime * 1000).toLocaleString()}</TableCell>
                  <TableCell align="right">
                    {!isDir && entry.mode.startsWith('-') && (
                      <Tooltip title="Download">
                        <IconButton component="a" href={downloadUrl(sessionId, target)} download={entry.filename} aria-label={`Download ${entry.filename}`} size="small">
                          <DownloadIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    )}
                  </TableCell>
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      )}
    </Stack>
  );
}
