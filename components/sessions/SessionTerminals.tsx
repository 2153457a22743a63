'use client';
/** Several terminals on one session, as tabs; each keeps its own shell while another is shown. */
import { useRef, useState } from 'react';
import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Tooltip from '@mui/material/Tooltip';
import { AddIcon, CloseIcon } from '@/components/frame/icons';
import { TerminalPane } from './TerminalPane';

const MAX_TERMINALS = 8;

export function SessionTerminals({ sessionId, visible }: { sessionId: string; visible: boolean }) {
  const next = useRef(2);
  const [tabs, setTabs] = useState<number[]>([1]);
  const [active, setActive] = useState(1);

  function add(): void {
    const id = next.current++;
    setTabs([...tabs, id]);
    setActive(id);
  }

  function close(id: number): void {
    const rest = tabs.filter((t) => t !== id);
    setTabs(rest);
    if (active === id) setActive(rest[Math.max(0, tabs.indexOf(id) - 1)]);
  }

  return (
    <Stack spacing={1} sx={{ height: { xs: 420, md: 'calc(100vh - 360px)' }, minHeight: 360 }}>
      <Stack direction="row" sx={{ alignItems: 'center', borderBottom: 1, borderColor: 'divider' }}>
        <Tabs value={active} onChange={(_e, v: number) => setActive(v)} variant="scrollable" scrollButtons="auto" aria-label="Terminals" sx={{ minHeight: 40 }}>
          {tabs.map((id) => (
            <Tab key={id} value={id} label={`Terminal ${id}`} sx={{ minHeight: 40, py: 0 }} />
          ))}
        </Tabs>
        <Tooltip title={tabs.length >= MAX_TERMINALS ? `At most ${MAX_TERMINALS} terminals` : 'New terminal'}>
          <span>
            <IconButton size="small" onClick={add} disabled={tabs.length >= MAX_TERMINALS} aria-label="New terminal" sx={{ ml: 0.5 }}>
              <AddIcon fontSize="small" />
            </IconButton>
          </span>
        </Tooltip>
        {tabs.length > 1 && (
          <Tooltip title={`Close terminal ${active}`}>
            <IconButton size="small" onClick={() => close(active)} aria-label={`Close terminal ${active}`}>
              <CloseIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        )}
      </Stack>
      <Box sx={{ flex: 1, minHeight: 0, position: 'relative' }}>
        {tabs.map((id) => (
          <Box key={id} sx={{ position: 'absolute', inset: 0, visibility: id === active ? 'visible' : 'hidden' }} data-testid={id === active ? 'active-terminal' : undefined}>
            <TerminalPane sessionId={sessionId} active={visible && id === active} label={`Terminal ${id}`} />
          </Box>
        ))}
      </Box>
    </Stack>
  );
}
