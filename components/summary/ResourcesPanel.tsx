'use client';
/** What the caller's sessions hold against their limits (check-presets: keypair_using / keypair_limits / keypair_remaining). */
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { formatSlot, orderSlots } from '@/components/admin/format';
import { Loading, ProblemAlert } from '@/components/ui/feedback';
import { useSlotUnits } from '@/components/admin/useSlotUnits';
import { SlotBar } from '@/components/admin/AgentsView';
import { SummaryCard } from './SummaryCard';
import { useCheckPresets } from './useSummary';

export function ResourcesPanel() {
  const { data, error } = useCheckPresets();
  const units = useSlotUnits();
  let body;
  if (error) body = <ProblemAlert error={error} />;
  else if (!data) body = <Loading rows={3} />;
  else {
    const slots = orderSlots([...Object.keys(data.keypair_limits), ...Object.keys(data.keypair_using)]);
    body = (
      <Stack spacing={1.5} data-testid="resource-usage">
        {slots.map((slot) => (
          <Stack key={slot} spacing={0.25}>
            <SlotBar slot={slot} used={data.keypair_using[slot]} total={data.keypair_limits[slot]} units={units.data} />
            <Typography variant="caption" color="text.secondary">
              Left for new sessions: {formatSlot(slot, data.keypair_remaining[slot], units.data)}
            </Typography>
          </Stack>
        ))}
        <Typography variant="caption" color="text.secondary">
          “Unlimited” means your resource policy sets no limit; the cluster&apos;s capacity still applies.
        </Typography>
      </Stack>
    );
  }
  return (
    <SummaryCard title="Your resources" testId="resources-panel">
      {body}
    </SummaryCard>
  );
}
