'use client';
/**
 * A small code console over the execute API (POST /session/{name}, CONTRACT §8.1): each run is sent in query
 * mode and followed with `continue` until it finishes; a run that asks for input gets an input box (hidden for
 * passwords). Output is shown per run: stdout, stderr, images, and HTML in a sandboxed frame.
 */
import { useRef, useState, type KeyboardEvent } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { ManagerError } from '@/components/api/problem';
import { executeCode, interruptCode, type ExecutionRequest } from './useSessions';
import { PlayIcon, StopIcon } from '@/components/frame/icons';
import { ProblemAlert } from './common';
import type { ConsoleItem } from './model';
import { CodeField, MONO } from '@/components/ui/CodeField';

interface Run {
  id: number;
  code: string;
  items: ConsoleItem[];
  status: 'running' | 'waiting-input' | 'finished' | 'failed';
  exitCode: number | null;
  error?: ManagerError;
}


function Output({ item }: { item: ConsoleItem }) {
  const [kind, value] = item;
  if (kind === 'stdout' || kind === 'stderr' || kind === 'log') {
    return (
      <Box
        component="pre"
        sx={{ m: 0, fontFamily: MONO, fontSize: 13, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', color: kind === 'stderr' ? 'error.main' : kind === 'log' ? 'text.secondary' : 'text.primary' }}
      >
        {String(value)}
      </Box>
    );
  }
  if (kind === 'media' && Array.isArray(value) && typeof value[1] === 'string' && /^data:image\/(png|jpeg|gif|svg\+xml|webp);/.test(value[1])) {
    return <Box component="img" src={value[1]} alt="Output image" sx={{ maxWidth: '100%' }} />;
  }
  if (kind === 'html' && typeof value === 'string') {
    return <Box component="iframe" title="HTML output" sandbox="" srcDoc={value} sx={{ width: '100%', minHeight: 120, border: 0, bgcolor: 'background.paper' }} />;
  }
  return (
    <Box component="pre" sx={{ m: 0, fontFamily: MONO, fontSize: 13, color: 'text.secondary' }}>
      {JSON.stringify(value)}
    </Box>
  );
}

export function CodeConsole({ sessionId }: { sessionId: string }) {
  const [code, setCode] = useState('');
  const [runs, setRuns] = useState<Run[]>([]);
  const [input, setInput] = useState('');
  const [waiting, setWaiting] = useState<{ runId: string; isPassword: boolean } | null>(null);
  const nextId = useRef(1);
  const busy = runs.some((r) => r.status === 'running' || r.status === 'waiting-input');

  function update(id: number, change: (run: Run) => Run): void {
    setRuns((all) => all.map((r) => (r.id === id ? change(r) : r)));
  }

  /** Sends one request of a run and follows it until it finishes or waits for input. */
  async function follow(id: number, first: { mode: 'query' | 'input'; runId: string | null; code: string }): Promise<void> {
    let request: ExecutionRequest = first;
    try {
      for (;;) {
        const result = await executeCode(sessionId, request);
        update(id, (r) => ({ ...r, items: [...r.items, ...result.console] }));
        if (result.status === 'continued' || result.status === 'build-finished' || result.status === 'clean-finished') {
          request = { mode: 'continue', runId: result.runId, code: '' };
          continue;
        }
        if (result.status === 'waiting-input') {
          update(id, (r) => ({ ...r, status: 'waiting-input' }));
          setWaiting({ runId: result.runId, isPassword: Boolean(result.options?.is_password) });
          return;
        }
        update(id, (r) => ({ ...r, status: 'finished', exitCode: result.exitCode }));
        return;
      }
    } catch (err) {
      update(id, (r) => ({ ...r, status: 'failed', error: err as ManagerError }));
    }
  }

  function run(): void {
    if (!code.trim() || busy) return;
    const id = nextId.current++;
    setRuns((all) => [...all, { id, code, items: [], status: 'running', exitCode: null }]);
    setCode('');
    void follow(id, { mode: 'query', runId: null, code });
  }

  function sendInput(): void {
    const target = runs.find((r) => r.status === 'waiting-input');
    if (!waiting || !target) return;
    const text = input;
    setWaiting(null);
    setInput('');
    update(target.id, (r) => ({ ...r, status: 'running', items: waiting.isPassword ? r.items : [...r.items, ['stdout', `${text}\n`]] }));
    void follow(target.id, { mode: 'input', runId: waiting.runId, code: text });
  }

  function interrupt(): void {
    void interruptCode(sessionId);
  }

  function onKeyDown(event: KeyboardEvent): void {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      run();
    }
  }

  return (
    <Stack spacing={2}>
      {runs.length === 0 && (
        <Typography color="text.secondary">
          Run code in the session&apos;s interpreter; variables stay defined between runs. Press Ctrl+Enter to run.
        </Typography>
      )}
      {runs.map((r) => (
        <Card key={r.id} variant="outlined" data-testid="console-run" data-status={r.status}>
          <Box sx={{ px: 2, py: 1, bgcolor: 'action.hover', display: 'flex', gap: 1, alignItems: 'flex-start' }}>
            <Box component="pre" sx={{ m: 0, flex: 1, fontFamily: MONO, fontSize: 13, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {r.code}
            </Box>
            {r.status === 'running' && <CircularProgress size={16} aria-label="Running" />}
            {r.status === 'finished' && r.exitCode !== null && r.exitCode !== 0 && <Chip size="small" color="error" label={`exit ${r.exitCode}`} />}
          </Box>
          {(r.items.length > 0 || r.error) && (
            <Stack spacing={1} sx={{ px: 2, py: 1 }} data-testid="console-output">
              {r.items.map((item, i) => (
                <Output key={i} item={item} />
              ))}
              {r.error && <ProblemAlert error={r.error} />}
            </Stack>
          )}
        </Card>
      ))}
      {waiting && (
        <Stack direction="row" spacing={1} component="form" onSubmit={(e) => { e.preventDefault(); sendInput(); }}>
          <TextField
            autoFocus
            size="small"
            fullWidth
            label={waiting.isPassword ? 'Password' : 'Input'}
            type={waiting.isPassword ? 'password' : 'text'}
            value={input}
            onChange={(e) => setInput(e.target.value)}
            slotProps={{ htmlInput: { 'data-testid': 'console-input', style: { fontFamily: MONO } } }}
          />
          <Button type="submit" variant="outlined">
            Send
          </Button>
        </Stack>
      )}
      <CodeField
        label="Code"
        minRows={3}
        maxRows={16}
        value={code}
        onChange={setCode}
        onKeyDown={onKeyDown}
        placeholder="print('hello')"
        fontSize={14}
        textareaProps={{ 'data-testid': 'console-code' }}
      />
      <Stack direction="row" spacing={1} sx={{ justifyContent: 'flex-end' }}>
        {runs.length > 0 && !busy && (
          <Button onClick={() => setRuns([])} color="inherit">
            Clear
          </Button>
        )}
        {busy && (
          <Button onClick={interrupt} color="warning" startIcon={<StopIcon />}>
            Interrupt
          </Button>
        )}
        <Button variant="contained" onClick={run} disabled={busy || !code.trim()} startIcon={<PlayIcon />}>
          Run
        </Button>
      </Stack>
    </Stack>
  );
}
