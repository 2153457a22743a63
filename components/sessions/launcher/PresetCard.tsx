'use client';
/** One choice of the resource preset radio group: its name and slots, greyed out when it cannot be allocated now. */
import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import CardActionArea from '@mui/material/CardActionArea';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';
import { formatSlots } from '../model';
import type { Preset } from '../useLauncher';

export function PresetCard({ preset, allocatable, selected, onSelect }: { preset: Preset; allocatable: boolean | undefined; selected: boolean; onSelect: () => void }) {
  return (
    <Card variant="outlined" sx={{ height: '100%', borderColor: selected ? 'primary.main' : undefined, opacity: allocatable === false ? 0.6 : 1 }}>
      <CardActionArea
        onClick={onSelect}
        disabled={allocatable === false}
        role="radio"
        aria-checked={selected}
        sx={{ height: '100%' }}
        data-testid={`preset-${preset.name}`}
      >
        <CardContent sx={{ display: 'flex', alignItems: 'flex-start', gap: 1.5 }}>
          <Box
            aria-hidden
            sx={{
              mt: 0.5,
              width: 16,
              height: 16,
              flexShrink: 0,
              borderRadius: '50%',
              border: 2,
              borderColor: selected ? 'primary.main' : 'text.disabled',
              boxShadow: (t) => (selected ? `inset 0 0 0 3px ${t.palette.background.paper}` : 'none'),
              bgcolor: selected ? 'primary.main' : 'transparent',
            }}
          />
          <Box sx={{ minWidth: 0 }}>
            <Typography sx={{ fontWeight: 600 }}>{preset.name}</Typography>
            <Typography variant="body2" color="text.secondary">
              {formatSlots(preset.resource_slots)}
            </Typography>
            {allocatable === false && <Chip size="small" label="Not available now" sx={{ mt: 1 }} />}
          </Box>
        </CardContent>
      </CardActionArea>
    </Card>
  );
}
