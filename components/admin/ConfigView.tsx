'use client';
/**
 * The raw configuration store (superadmins): read a key or everything under a prefix, write a value, and delete
 * with a confirmation that first shows what would go. Prefixes match as plain text, so `auth` also reaches `author/…`;
 * the page says so where it matters.
 */
import { useState, type FormEvent, type ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { deleteConfig, readConfig, writeConfig, type ConfigTree, type ConfigValue } from './configStore';
import { ConfirmDialog } from '@/components/ui/ConfirmDialog';
import { EmptyState, ProblemAlert } from '@/components/ui/feedback';
import { SectionCard } from '@/components/ui/SectionCard';
import { useSending } from '@/components/ui/useSending';
import { CodeField, MONO } from '@/components/ui/CodeField';
import { CardsPage } from '@/components/ui/CardsPage';
import { BusyButton } from '@/components/ui/BusyButton';
import { RowForm } from '@/components/ui/RowForm';
import { SubmitActions } from '@/components/ui/FormActions';


const MAX_KEY_LENGTH = 1024;


/** The tree as rows: the path below the prefix (as the store nests it) and the value; '' is the prefix's own value. */
function flatten(tree: ConfigTree, base = ''): { path: string; value: string }[] {
  const rows: { path: string; value: string }[] = [];
  for (const [k, v] of Object.entries(tree)) {
    const path = k === '' ? base : base ? `${base}/${k}` : k;
    if (typeof v === 'string') rows.push({ path, value: v });
    else rows.push(...flatten(v, path));
  }
  return rows;
}

function keyProblem(key: string): string | null {
  if (!key) return 'Enter a key, such as auth/max_password_age.';
  if (key.length > MAX_KEY_LENGTH) return `At most ${MAX_KEY_LENGTH} characters.`;
  if (key.includes('\0')) return 'Keys cannot hold NUL characters.';
  return null;
}

const MONO_INPUT = { htmlInput: { spellCheck: false, style: { fontFamily: MONO } } };

/** A key, in monospace and unchecked for spelling; its problem shows once the form was sent. */
function KeyField({ name, value, onChange, problem, submitted, helperText = ' ', grow }: { name: string; value: string; onChange: (key: string) => void; problem: string | null; submitted: boolean; helperText?: string; grow?: boolean }) {
  return (
    <TextField
      label="Key"
      name={name}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      error={submitted && Boolean(problem)}
      helperText={(submitted && problem) || helperText}
      sx={grow ? { flexGrow: 1 } : undefined}
      slotProps={MONO_INPUT}
    />
  );
}

/** What each card's form holds: the key, whether it is a prefix, and whether sending was tried (problems show then). */
function useKeyForm() {
  const [key, setKey] = useState('');
  const [prefix, setPrefix] = useState(false);
  const [submitted, setSubmitted] = useState(false);
  return { key, setKey, prefix, setPrefix, submitted, setSubmitted, problem: keyProblem(key) };
}

/** The read and delete forms: a key, whether it is a prefix, and the card's button, in one row. */
function KeyPrefixForm({ name, form, onSubmit, button }: { name: string; form: ReturnType<typeof useKeyForm>; onSubmit: (event: FormEvent<HTMLFormElement>) => void; button: ReactNode }) {
  return (
    <RowForm onSubmit={onSubmit}>
      <KeyField name={name} value={form.key} onChange={form.setKey} problem={form.problem} submitted={form.submitted} grow />
      <FormControlLabel control={<Checkbox checked={form.prefix} onChange={(e) => form.setPrefix(e.target.checked)} />} label="As a prefix" sx={{ mt: { sm: 1 } }} />
      {button}
    </RowForm>
  );
}

function ReadCard() {
  const form = useKeyForm();
  const { key, prefix, problem } = form;
  const { pending, error, send } = useSending();
  const [result, setResult] = useState<{ key: string; prefix: boolean; value: ConfigValue } | null>(null);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    form.setSubmitted(true);
    if (problem) return;
    await send(async () => {
      setResult({ key, prefix, value: await readConfig(key, prefix) });
    });
  }

  const rows = result && typeof result.value === 'object' && result.value !== null ? flatten(result.value) : null;
  return (
    <SectionCard id="config-read" title="Read" description="One key, or every key that starts with the text you give.">
      <Stack spacing={2}>
        <KeyPrefixForm
          name="read-key"
          form={form}
          onSubmit={handleSubmit}
          button={
            <BusyButton type="submit" busy={pending} busyLabel="Reading…">
              Read
            </BusyButton>
          }
        />
        <ProblemAlert error={error} />
        {result && (
          <Box data-testid="config-result">
            {result.value === null || (rows && rows.length === 0) ? (
              <EmptyState title={result.prefix ? `No keys start with “${result.key}”` : `No value at “${result.key}”`} />
            ) : typeof result.value === 'string' ? (
              <Box component="pre" sx={{ m: 0, p: 1.5, fontFamily: MONO, fontSize: 13, whiteSpace: 'pre-wrap', wordBreak: 'break-all', bgcolor: 'action.hover', borderRadius: 1 }}>
                {result.value}
              </Box>
            ) : (
              <>
                <Table size="small" aria-label="Keys found">
                  <TableHead>
                    <TableRow>
                      <TableCell>Below “{result.key}”</TableCell>
                      <TableCell>Value</TableCell>
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {rows!.map((row) => (
                      <TableRow key={row.path}>
                        <TableCell sx={{ fontFamily: MONO, overflowWrap: 'anywhere' }}>{row.path || '(the key itself)'}</TableCell>
                        <TableCell sx={{ fontFamily: MONO, overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}>{row.value}</TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
                <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1 }}>
                  {rows!.length === 1 ? '1 key' : `${rows!.length} keys`}. Paths are shown below the prefix, split at “/”.
                </Typography>
              </>
            )}
          </Box>
        )}
      </Stack>
    </SectionCard>
  );
}

function WriteCard({ notify }: { notify: (message: string) => void }) {
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const { pending, error, send } = useSending();
  const problem = keyProblem(key);
  const valueProblem = value.includes('\0') ? 'Values cannot hold NUL characters.' : null;

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubmitted(true);
    if (problem || valueProblem) return;
    await send(async () => {
      await writeConfig(key, value);
      notify(`${key} is set.`);
    });
  }

  return (
    <SectionCard id="config-write" title="Write" description="Sets one key to a text value, replacing what it held. Changes take effect right away.">
      <Stack component="form" spacing={2} onSubmit={handleSubmit} noValidate>
        <KeyField name="write-key" value={key} onChange={setKey} problem={problem} submitted={submitted} helperText="e.g. auth/max_password_age" />
        <CodeField label="Value" name="write-value" minRows={2} value={value} onChange={setValue} error={Boolean(valueProblem)} helperText={valueProblem || 'e.g. 90d'} />
        <SubmitActions error={error} label="Save value" busy={pending} busyLabel="Saving…" />
      </Stack>
    </SectionCard>
  );
}

function DeleteCard({ notify }: { notify: (message: string) => void }) {
  const form = useKeyForm();
  const { key, prefix, problem } = form;
  const { pending: checking, error, send } = useSending();
  const [confirm, setConfirm] = useState<{ key: string; prefix: boolean; keys: string[] } | null>(null);

  /** Reads what the delete would remove, so the confirmation can list it. */
  async function review(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    form.setSubmitted(true);
    if (problem) return;
    await send(async () => {
      const found = await readConfig(key, prefix);
      const keys = found === null ? [] : typeof found === 'string' ? [key] : flatten(found).map((row) => row.path || '(the key itself)');
      setConfirm({ key, prefix, keys });
    });
  }

  return (
    <SectionCard id="config-delete" title="Delete" description="Removes a key, or every key that starts with the text you give. You see what matches before anything is deleted.">
      <Stack spacing={2}>
        <KeyPrefixForm
          name="delete-key"
          form={form}
          onSubmit={review}
          button={
            <BusyButton type="submit" variant="outlined" color="error" busy={checking} busyLabel="Checking…">
              Delete…
            </BusyButton>
          }
        />
        <ProblemAlert error={error} />
      </Stack>
      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.prefix ? `Delete every key starting with “${confirm.key}”?` : `Delete “${confirm?.key ?? ''}”?`}
        confirmLabel={confirm && confirm.keys.length > 1 ? `Delete ${confirm.keys.length} keys` : 'Delete'}
        danger
        confirmDisabled={!confirm || confirm.keys.length === 0}
        onConfirm={async () => {
          await deleteConfig(confirm!.key, confirm!.prefix);
          notify(confirm!.keys.length > 1 ? `${confirm!.keys.length} keys are deleted.` : `${confirm!.key} is deleted.`);
        }}
        onClose={() => setConfirm(null)}
      >
        {confirm && confirm.keys.length === 0 ? (
          <Typography variant="body2">Nothing matches, so there is nothing to delete.</Typography>
        ) : (
          <>
            {confirm?.prefix && (
              <Alert severity="warning">
                Prefixes match as plain text: keys that merely begin with “{confirm.key}” (not only those below “{confirm.key}/”) are deleted too.
              </Alert>
            )}
            <Typography variant="body2">{confirm?.prefix ? 'These keys (below the prefix) will be deleted:' : 'This key will be deleted:'}</Typography>
            <Box component="ul" sx={{ m: 0, pl: 3, maxHeight: 200, overflow: 'auto', fontFamily: MONO, fontSize: 13 }}>
              {confirm?.keys.map((k) => (
                <li key={k}>{k}</li>
              ))}
            </Box>
          </>
        )}
      </ConfirmDialog>
    </SectionCard>
  );
}

export function ConfigView() {
  return (
    <CardsPage
      title="Configuration store"
      description="Raw keys and values the manager reads its settings from. Prefer the dedicated pages where one exists; a wrong value here can change how the whole cluster behaves."
    >
      {(notify) => (
        <>
          <ReadCard />
          <WriteCard notify={notify} />
          <DeleteCard notify={notify} />
        </>
      )}
    </CardsPage>
  );
}
