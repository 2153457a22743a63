'use client';
/**
 * The cluster's capacity at a glance. Superadmins see every agent (GraphQL agent_list) and domain admins the agents
 * of their scaling groups (agent_summary_list), totalled over ALIVE agents; users see what their scaling groups have
 * left (check-presets).
 */
import NextLink from 'next/link';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useCurrentUser } from '@/components/auth/CurrentUser';
import { SlotBar } from '@/components/admin/AgentsView';
import { useAgents, type AgentRow } from '@/components/admin/useAgents';
import { orderSlots, type SlotUnits } from '@/components/admin/format';
import { parseJsonField } from '@/components/api/graphql';
import { EmptyState, Loading, ProblemAlert } from '@/components/ui/feedback';
import { useSlotUnits } from '@/components/admin/useSlotUnits';
import { SummaryCard } from './SummaryCard';
import { useCheckPresets } from './useSummary';

type Amounts = Record<string, number>;

function add(into: Amounts, from: Record<string, string>) {
  for (const [slot, value] of Object.entries(from)) {
    const n = Number(value);
    if (Number.isFinite(n)) into[slot] = (into[slot] ?? 0) + n;
  }
}

function Totals({ used, total, units }: { used: Amounts; total: Amounts; units?: SlotUnits }) {
  const slots = orderSlots([...Object.keys(total), ...Object.keys(used)]);
  return (
    <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: 'repeat(2, minmax(0, 1fr))', lg: 'repeat(4, minmax(0, 1fr))' } }}>
      {slots.map((slot) => (
        <SlotBar key={slot} slot={slot} used={String(used[slot] ?? 0)} total={String(total[slot] ?? 0)} units={units} />
      ))}
    </Box>
  );
}

function AgentCapacity({ superadmin, units }: { superadmin: boolean; units?: SlotUnits }) {
  const { list, error } = useAgents(superadmin, 0, 100, 15_000);
  if (error) return <ProblemAlert error={error} />;
  if (!list) return <Loading rows={2} />;
  if (list.items.length === 0) return <EmptyState title="No agents">No agent has registered, so no session can start.</EmptyState>;
  const alive = list.items.filter((a: AgentRow) => a.status === 'ALIVE');
  const schedulable = alive.filter((a) => a.schedulable);
  const used: Amounts = {};
  const total: Amounts = {};
  for (const agent of alive) {
    add(used, parseJsonField<Record<string, string>>(agent.occupied_slots, {}));
    add(total, parseJsonField<Record<string, string>>(agent.available_slots, {}));
  }
  return (
    <Stack spacing={2} data-testid="agent-capacity">
      <Typography variant="body2" color="text.secondary">
        {alive.length} of {list.total_count} agents alive{schedulable.length < alive.length ? `, ${alive.length - schedulable.length} excluded from scheduling` : ''}. Used across alive
        agents:
      </Typography>
      {alive.length ? <Totals used={used} total={total} units={units} /> : <Typography variant="body2">No agent is alive: sessions cannot start.</Typography>}
    </Stack>
  );
}

function GroupCapacity({ units }: { units?: SlotUnits }) {
  const { data, error } = useCheckPresets();
  if (error) return <ProblemAlert error={error} />;
  if (!data) return <Loading rows={2} />;
  const groups = Object.entries(data.scaling_groups);
  if (!groups.length) return <EmptyState title="No scaling group is open to you">Ask an administrator to give your project a scaling group.</EmptyState>;
  return (
    <Stack spacing={2.5} data-testid="group-capacity">
      {groups.map(([name, group]) => {
        const used: Amounts = {};
        const total: Amounts = {};
        add(used, group.using);
        add(total, group.using);
        add(total, group.remaining);
        return (
          <Box key={name}>
            <Typography variant="body2" sx={{ fontWeight: 600, mb: 1 }}>
              {name}
            </Typography>
            {Object.keys(total).length ? <Totals used={used} total={total} units={units} /> : <Typography variant="body2" color="text.secondary">No agent is taking sessions in this group now.</Typography>}
          </Box>
        );
      })}
    </Stack>
  );
}

export function CapacityPanel() {
  const me = useCurrentUser();
  const units = useSlotUnits();
  const admin = me.role === 'superadmin' || me.role === 'admin';
  return (
    <SummaryCard
      title="Cluster capacity"
      testId="capacity-panel"
      action={
        admin ? (
          <Link component={NextLink} href="/admin/agents" underline="hover" variant="body2">
            Agents
          </Link>
        ) : undefined
      }
    >
      {admin ? <AgentCapacity superadmin={me.role === 'superadmin'} units={units.data} /> : <GroupCapacity units={units.data} />}
    </SummaryCard>
  );
}
