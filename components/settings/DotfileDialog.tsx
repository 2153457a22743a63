'use client';
/**
 * Creating or editing one dotfile: its path under /home/work, its permission (three octal digits) and its content.
 * Path and permission are checked before anything is sent; the manager's refusal (a duplicate, the 64 KiB limit)
 * is shown in the dialog.
 */
import { useState } from 'react';
import InputAdornment from '@mui/material/InputAdornment';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { FormDialog } from '@/components/ui/FormDialog';
import { formatBytes } from '@/components/admin/format';
import { byteLength, checkDotfilePath, checkPermission, MAX_DOTFILES_BYTES, symbolicPermission } from './dotfile-rules';
import { saveDotfile, type Dotfile } from './useSettings';
import { CodeField, MONO } from '@/components/ui/CodeField';


export function DotfileDialog({
  open,
  editing,
  existingPaths,
  onClose,
  onSaved,
}: {
  open: boolean;
  /** The dotfile being edited; null to create one. */
  editing: Dotfile | null;
  existingPaths: string[];
  onClose: () => void;
  onSaved: (path: string) => void;
}) {
  const [path, setPath] = useState('');
  const [permission, setPermission] = useState('644');
  const [data, setData] = useState('');
  const [submitted, setSubmitted] = useState(false);

  const checkedPath = checkDotfilePath(path);
  let pathProblem = 'error' in checkedPath ? checkedPath.error : null;
  if (!editing && 'path' in checkedPath && existingPaths.includes(checkedPath.path)) pathProblem = `You already have ${checkedPath.path}; edit it in the list instead.`;
  const permissionProblem = checkPermission(permission);
  const size = byteLength(data);
  const sizeProblem = size > MAX_DOTFILES_BYTES ? `The content is ${formatBytes(size)}; all your dotfiles together may hold at most 64 KiB.` : null;
  const symbolic = symbolicPermission(permission);

  async function save() {
    setSubmitted(true);
    if (pathProblem || permissionProblem || sizeProblem || !('path' in checkedPath)) return;
    await saveDotfile({ path: checkedPath.path, permission, data }, editing ? 'update' : 'create');
    onSaved(checkedPath.path);
  }

  const showPath = submitted || path !== '';
  return (
    <FormDialog
      open={open}
      title={editing ? `Edit ${editing.path}` : 'New dotfile'}
      submitLabel={editing ? 'Save changes' : 'Create dotfile'}
      maxWidth="md"
      onOpen={() => {
        setPath(editing?.path ?? '');
        setPermission(editing?.permission ?? '644');
        setData(editing?.data ?? '');
        setSubmitted(false);
      }}
      onSubmit={save}
      onClose={onClose}
    >
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
        <TextField
          label="Path"
          name="dotfile-path"
          value={path}
          onChange={(e) => setPath(e.target.value)}
          disabled={Boolean(editing)}
          autoFocus={!editing}
          error={showPath && Boolean(pathProblem)}
          helperText={(showPath && pathProblem) || 'Relative to /home/work, e.g. .vimrc or .config/git/config'}
          sx={{ flexGrow: 1 }}
          slotProps={{
            input: { startAdornment: <InputAdornment position="start">/home/work/</InputAdornment> },
            htmlInput: { spellCheck: false, autoCapitalize: 'off', style: { fontFamily: MONO } },
          }}
        />
        <TextField
          label="Permission"
          name="dotfile-permission"
          value={permission}
          onChange={(e) => setPermission(e.target.value.trim())}
          error={(submitted || permission !== '') && Boolean(permissionProblem)}
          helperText={permissionProblem && (submitted || permission !== '') ? permissionProblem : symbolic ? `Octal: ${symbolic}` : ' '}
          sx={{ width: { sm: 220 } }}
          slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 3, spellCheck: false, style: { fontFamily: MONO } } }}
        />
      </Stack>
      <CodeField
        label="Content"
        name="dotfile-content"
        minRows={10}
        maxRows={24}
        value={data}
        onChange={setData}
        autoFocus={Boolean(editing)}
        error={Boolean(sizeProblem)}
        helperText={sizeProblem ?? `${formatBytes(size)}`}
      />
    </FormDialog>
  );
}
