'use client';
/**
 * The statistics charts (MUI X Charts). This module is the only one importing the charting library and is loaded
 * with next/dynamic by the statistics page alone, so other routes' first-load JavaScript does not carry it.
 * Axes use the browser's locale (dates and digits) and binary byte units; colours follow the MUI theme, so the
 * charts read in light and dark mode alike.
 */
import { useMemo } from 'react';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Grid from '@mui/material/Grid';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { LineChart } from '@mui/x-charts/LineChart';
import { formatDateTime } from '@/components/admin/format';
import { EmptyState } from '@/components/ui/feedback';
import { formatBytesLocale, formatCountLocale, STAT_CHARTS, statPoints, type StatBin, type StatRange } from './stats';

function dateFormat(range: StatRange): Intl.DateTimeFormat {
  return range === 'day'
    ? new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' })
    : new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
}

export default function StatCharts({ bins, range, scope }: { bins: StatBin[]; range: StatRange; scope: string }) {
  const points = useMemo(() => statPoints(bins, range), [bins, range]);
  const dates = points.map((p) => p.date);
  const axisDate = dateFormat(range);
  if (points.every((p) => Object.values(p.values).every((v) => v === 0))) {
    return (
      <EmptyState title={`No ended sessions in the last ${range}`}>
        Sessions count here once they end; try a longer range.
      </EmptyState>
    );
  }
  return (
    <Grid container spacing={2}>
      {STAT_CHARTS.map((chart) => {
        const format = (v: number | null) => (v === null ? '' : chart.unit === 'bytes' ? formatBytesLocale(v) : formatCountLocale(v));
        const peak = Math.max(0, ...chart.fields.flatMap(({ field }) => points.map((p) => p.values[field])));
        return (
          <Grid key={chart.title} size={{ xs: 12, md: 6 }}>
            <Card variant="outlined" data-testid={`${scope}-chart`} data-chart={chart.title}>
              <CardContent>
                <Stack direction="row" sx={{ justifyContent: 'space-between', alignItems: 'baseline' }}>
                  <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
                    {chart.title}
                  </Typography>
                  <Typography variant="body2" color="text.secondary" data-testid="chart-peak">
                    Peak {format(peak)}
                  </Typography>
                </Stack>
                <LineChart
                  height={220}
                  skipAnimation
                  margin={{ left: 8, right: 16 }}
                  xAxis={[{ data: dates, scaleType: 'time', valueFormatter: (d: Date, ctx) => (ctx.location === 'tooltip' ? formatDateTime(d) : axisDate.format(d)) }]}
                  yAxis={[{ valueFormatter: (v: number) => format(v), width: chart.unit === 'bytes' ? 72 : 40, min: 0 }]}
                  series={chart.fields.map(({ field, label }) => ({
                    data: points.map((p) => p.values[field]),
                    label,
                    showMark: false,
                    area: chart.fields.length === 1,
                    valueFormatter: format,
                  }))}
                  hideLegend={chart.fields.length === 1}
                />
              </CardContent>
            </Card>
          </Grid>
        );
      })}
    </Grid>
  );
}
