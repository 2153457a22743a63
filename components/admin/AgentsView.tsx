'use client';
/**
 * Agents: status, scaling group, slots used against capacity, and (superadmins) whether the scheduler places new
 * sessions on them (`/manager/scheduler/operation` include-agents / exclude-agents). Superadmins read the full
 * records (GraphQL `agent_list`); domain admins read the summaries of their scaling groups (`agent_summary_list`).
 */
import { useState } from 'react';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useCurrentUser } from '@/components/auth/CurrentUser';
import { formatRelative, formatSlot, orderSlots, slotLabel, usedPercent, type SlotUnits } from './format';
import { parseJsonField } from '@/components/api/graphql';
import { setAgentSchedulable, useAgents, type AgentRow } from './useAgents';
import { EmptyState, ProblemAlert } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/PageHeader';
import { useToast } from '@/components/ui/useToast';
import { useSlotUnits } from './useSlotUnits';
import { DataTable, type Column } from '@/components/ui/DataTable';
import { usePaging } from '@/components/ui/usePaging';

export function AgentStatusChip({ status }: { status: string }) {
  const color = status === 'ALIVE' ? 'success' : status === 'LOST' ? 'error' : status === 'RESTARTING' ? 'warning' : 'default';
  return <Chip size="small" label={status} color={color} variant={status === 'ALIVE' ? 'filled' : 'outlined'} />;
}

/** One slot's occupancy: a bar and "used / capacity". */
export function SlotBar({ slot, used, total, units }: { slot: string; used: string | undefined; total: string | undefined; units?: SlotUnits }) {
  const percent = usedPercent(used ?? '0', total);
  return (
    <Box sx={{ minWidth: 140 }}>
      <Stack direction="row" sx={{ justifyContent: 'space-between', gap: 1 }}>
        <Typography variant="caption" color="text.secondary">
          {slotLabel(slot)}
        </Typography>
        <Typography variant="caption" sx={{ whiteSpace: 'nowrap' }}>
          {formatSlot(slot, used ?? '0', units)} / {formatSlot(slot, total, units)}
        </Typography>
      </Stack>
      <LinearProgress
        variant="determinate"
        value={percent ?? 0}
        color={percent !== null && percent >= 90 ? 'warning' : 'primary'}
        aria-label={`${slotLabel(slot)} used`}
        sx={{ height: 6, borderRadius: 3 }}
      />
    </Box>
  );
}

export function AgentSlots({ agent, units }: { agent: AgentRow; units?: SlotUnits }) {
  const available = parseJsonField<Record<string, string>>(agent.available_slots, {});
  const occupied = parseJsonField<Record<string, string>>(agent.occupied_slots, {});
  const slots = orderSlots([...Object.keys(available), ...Object.keys(occupied)]);
  if (!slots.length) return <Typography variant="body2" color="text.secondary">No slots reported</Typography>;
  return (
    <Stack spacing={1}>
      {slots.map((slot) => (
        <SlotBar key={slot} slot={slot} used={occupied[slot]} total={available[slot]} units={units} />
      ))}
    </Stack>
  );
}

const PAGE_SIZES = [25, 50, 100];

export function AgentsView() {
  const me = useCurrentUser();
  const superadmin = me.role === 'superadmin';
  const { page, pageSize, pager } = usePaging(PAGE_SIZES);
  const { list, error, mutate } = useAgents(superadmin, page, pageSize);
  const units = useSlotUnits();
  const [busy, setBusy] = useState<string | null>(null);
  const [toggleError, setToggleError] = useState<unknown>(null);
  const [toast, notify] = useToast();

  async function setSchedulable(agent: AgentRow, schedulable: boolean) {
    setBusy(agent.id);
    setToggleError(null);
    try {
      await setAgentSchedulable(agent.id, schedulable);
      await mutate();
      notify(schedulable ? `${agent.id} takes new sessions again.` : `${agent.id} takes no new sessions; running ones continue.`);
    } catch (err) {
      setToggleError(err);
    } finally {
      setBusy(null);
    }
  }

  const top = { verticalAlign: 'top' };
  const columns: Column<AgentRow>[] = [
    {
      key: 'agent',
      label: 'Agent',
      cellSx: { ...top, overflowWrap: 'anywhere' },
      render: (agent) => (
        <>
          <Typography variant="body2" sx={{ fontWeight: 500 }}>
            {agent.id}
          </Typography>
          <Typography variant="caption" color="text.secondary" component="div">
            {[agent.addr, agent.architecture, agent.version && `v${agent.version}`].filter(Boolean).join(' · ')}
          </Typography>
        </>
      ),
    },
    {
      key: 'status',
      label: 'Status',
      cellSx: top,
      render: (agent) => (
        <>
          <AgentStatusChip status={agent.status} />
          {agent.status_changed && (
            <Typography variant="caption" color="text.secondary" component="div" sx={{ mt: 0.5, whiteSpace: 'nowrap' }}>
              {formatRelative(agent.status_changed)}
            </Typography>
          )}
        </>
      ),
    },
    { key: 'scaling_group', label: 'Scaling group', wide: true, cellSx: top, render: (agent) => agent.scaling_group },
    { key: 'slots', label: 'Slots used', headSx: { width: { md: 320 } }, cellSx: top, render: (agent) => <AgentSlots agent={agent} units={units.data} /> },
    {
      key: 'schedulable',
      label: 'Schedulable',
      cellSx: top,
      render: (agent) =>
        superadmin ? (
          <Tooltip title={agent.schedulable ? 'Takes new sessions' : 'Takes no new sessions'}>
            <Switch
              checked={agent.schedulable}
              disabled={busy === agent.id}
              onChange={(e) => void setSchedulable(agent, e.target.checked)}
              slotProps={{ input: { 'aria-label': `Schedule new sessions on ${agent.id}` } }}
            />
          </Tooltip>
        ) : (
          <Chip size="small" variant="outlined" label={agent.schedulable ? 'Yes' : 'No'} />
        ),
    },
  ];

  return (
    <>
      <PageHeader
        title="Agents"
        description={
          superadmin
            ? 'Machines that run sessions. Turn “Schedulable” off to stop placing new sessions on an agent (for maintenance); its running sessions continue.'
            : 'Machines that run sessions in the scaling groups of your domain.'
        }
      />
      <ProblemAlert error={toggleError} sx={{ mb: 2 }} onClose={() => setToggleError(null)} />
      <DataTable
        label="Agents"
        testId="agents-table"
        columns={columns}
        rowKey={(agent) => agent.id}
        rows={list?.items}
        total={list?.total_count ?? 0}
        {...pager}
        error={error}
        empty={
          <EmptyState title="No agents">
            No agent has registered with this manager. Agents register when they start (with <code>npm start</code>, the built-in local agent does).
          </EmptyState>
        }
      />
      {toast}
    </>
  );
}
