'use client';
/**
 * One terminal: xterm.js on the dashboard's WebSocket relay (/api/stream/session/<id>/pty, CONTRACT §8.4). The
 * terminal follows its box's size (fit addon → resize frames), keeps the session from idling with pings, and
 * offers a reconnect (a new shell) when the socket drops.
 */
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import type { Terminal } from '@xterm/xterm';
import type { FitAddon } from '@xterm/addon-fit';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useColorScheme } from '@mui/material/styles';
import { RefreshIcon } from '@/components/frame/icons';

const PING_MS = 30_000;

const DARK = { background: '#0f1419', foreground: '#e6e1cf', cursor: '#f29718', selectionBackground: '#253340' };
const LIGHT = { background: '#fbfbfb', foreground: '#1f2328', cursor: '#1f2328', cursorAccent: '#fbfbfb', selectionBackground: '#b6d6fd' };

type SocketState = 'connecting' | 'open' | 'closed';

function toBase64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function ptyUrl(sessionId: string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${window.location.host}/api/stream/session/${encodeURIComponent(sessionId)}/pty`;
}

export function TerminalPane({ sessionId, active, label }: { sessionId: string; active: boolean; label: string }) {
  // The theme's palette is always the light one (its colors are CSS variables that follow prefers-color-scheme);
  // xterm draws on a canvas and needs the scheme itself, which useColorScheme follows as it changes.
  const mode = useColorScheme().colorScheme === 'dark' ? 'dark' : 'light';
  const host = useRef<HTMLDivElement>(null);
  const terminal = useRef<{ term: Terminal; fit: FitAddon } | null>(null);
  const socket = useRef<WebSocket | null>(null);
  const [ready, setReady] = useState(false);
  const [state, setState] = useState<SocketState>('connecting');
  const [generation, setGeneration] = useState(0);

  function send(frame: object): void {
    const ws = socket.current;
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
  }

  function fit(): void {
    const t = terminal.current;
    const el = host.current;
    if (!t || !el || el.clientWidth === 0 || el.clientHeight === 0) return;
    t.fit.fit();
  }

  // The terminal itself, created once on the client (xterm needs the DOM).
  useEffect(() => {
    let disposed = false;
    void Promise.all([import('@xterm/xterm'), import('@xterm/addon-fit')]).then(([{ Terminal: XTerm }, { FitAddon: Fit }]) => {
      if (disposed || !host.current) return;
      const term = new XTerm({
        cursorBlink: true,
        fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
        fontSize: 14,
        scrollback: 5000,
        theme: mode === 'dark' ? DARK : LIGHT,
      });
      const addon = new Fit();
      term.loadAddon(addon);
      term.open(host.current);
      term.onData((data) => send({ type: 'stdin', chars: toBase64(data) }));
      term.onResize(({ rows, cols }) => send({ type: 'resize', rows, cols }));
      terminal.current = { term, fit: addon };
      setReady(true);
    });
    return () => {
      disposed = true;
      terminal.current?.term.dispose();
      terminal.current = null;
    };
    // The theme is applied by the effect below; the terminal is not recreated for it.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see above
  }, []);

  useEffect(() => {
    if (terminal.current) terminal.current.term.options.theme = mode === 'dark' ? DARK : LIGHT;
  }, [mode, ready]);

  // One socket per connection attempt; "Reconnect" starts a new attempt (and a new shell).
  useEffect(() => {
    if (!ready) return;
    const t = terminal.current!;
    const ws = new WebSocket(ptyUrl(sessionId));
    socket.current = ws;
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the state mirrors the socket this effect opens
    setState('connecting');
    ws.onopen = () => {
      setState('open');
      fit();
      send({ type: 'resize', rows: t.term.rows, cols: t.term.cols });
    };
    ws.onmessage = (event: MessageEvent<string>) => {
      let frame: { type?: string; data?: string };
      try {
        frame = JSON.parse(event.data) as { type?: string; data?: string };
      } catch {
        return;
      }
      if (frame.type === 'out' && typeof frame.data === 'string') t.term.write(fromBase64(frame.data));
      else if (frame.type === 'error' && typeof frame.data === 'string') t.term.write(`\r\n\x1b[31m${frame.data}\x1b[0m\r\n`);
    };
    ws.onclose = () => {
      if (socket.current === ws) setState('closed');
    };
    const ping = setInterval(() => send({ type: 'ping' }), PING_MS);
    return () => {
      clearInterval(ping);
      if (socket.current === ws) socket.current = null;
      ws.onclose = null;
      ws.close();
    };
    // send and fit read refs only.
  }, [ready, generation, sessionId]);

  // Follow the box's size while shown; hidden panes keep their size until shown again.
  useEffect(() => {
    if (!ready || !active || !host.current) return;
    const observer = new ResizeObserver(() => fit());
    observer.observe(host.current);
    fit();
    terminal.current?.term.focus();
    return () => observer.disconnect();
  }, [ready, active]);

  function reconnect(): void {
    terminal.current?.term.write('\r\n\x1b[2m— reconnecting —\x1b[0m\r\n');
    setGeneration((g) => g + 1);
  }

  return (
    <Box sx={{ position: 'relative', height: '100%', bgcolor: mode === 'dark' ? DARK.background : LIGHT.background, borderRadius: 1, overflow: 'hidden' }}>
      <Box
        ref={host}
        role="group"
        aria-label={label}
        data-testid="terminal"
        data-state={state}
        data-scheme={mode}
        sx={{ position: 'absolute', inset: 0, p: 1, '& .xterm': { height: '100%' } }}
      />
      {state === 'connecting' && ready && (
        <Stack direction="row" spacing={1} sx={{ position: 'absolute', top: 8, right: 12, alignItems: 'center', color: 'text.secondary' }}>
          <CircularProgress size={14} color="inherit" />
          <Typography variant="caption">Connecting…</Typography>
        </Stack>
      )}
      {state === 'closed' && (
        <Stack
          spacing={1.5}
          sx={{
            position: 'absolute',
            inset: 0,
            alignItems: 'center',
            justifyContent: 'center',
            bgcolor: mode === 'dark' ? 'rgba(0,0,0,0.6)' : 'rgba(255,255,255,0.75)',
          }}
        >
          <Typography sx={{ fontWeight: 600 }}>The terminal was disconnected.</Typography>
          <Button variant="contained" startIcon={<RefreshIcon />} onClick={reconnect} data-testid="terminal-reconnect">
            Reconnect
          </Button>
        </Stack>
      )}
    </Box>
  );
}
