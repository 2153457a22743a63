'use client';
/**
 * The Image section of the launcher: the image (built-in ones, then the user's own), the session name, and, when
 * there is a choice, the project and the scaling group; then what the chosen image needs and which apps it offers.
 */
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Grid from '@mui/material/Grid';
import ListSubheader from '@mui/material/ListSubheader';
import MenuItem from '@mui/material/MenuItem';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { ProblemAlert, useDelayed } from '../common';
import { formatSlots } from '../model';
import type { ImageChoice, useImages, useMyProjects, useScalingGroups } from '../useLauncher';
import { imageApps, imageMinimum } from './launchRules';

interface Choice<T> {
  value: T;
  onChange: (value: T) => void;
}

export function ImageFields({
  images,
  image,
  onImage,
  name,
  nameProblem,
  projects,
  project,
  scalingGroups,
  scalingGroup,
}: {
  images: ReturnType<typeof useImages>;
  image: ImageChoice | undefined;
  onImage: (name: string) => void;
  name: Choice<string>;
  nameProblem: string | null;
  projects: ReturnType<typeof useMyProjects>;
  project: Choice<string>;
  scalingGroups: ReturnType<typeof useScalingGroups>;
  scalingGroup: Choice<string>;
}) {
  const loading = useDelayed(!images.data && !images.error);
  if (images.error) return <ProblemAlert error={images.error} />;
  if (!images.data) return loading ? <Skeleton variant="rounded" height={56} /> : <Box sx={{ height: 56 }} />;
  const builtin = images.data.filter((i) => !i.is_customized);
  const customized = images.data.filter((i) => i.is_customized);
  const apps = imageApps(image);
  return (
    <Grid container spacing={2}>
      <Grid size={{ xs: 12, md: 7 }}>
        <TextField
          select
          fullWidth
          label="Image"
          value={image?.name ?? ''}
          onChange={(e) => onImage(e.target.value)}
          slotProps={{ select: { MenuProps: { slotProps: { paper: { 'data-testid': 'image-menu' } as object } } } }}
          data-testid="image-select"
        >
          {builtin.length > 0 && <ListSubheader>Images</ListSubheader>}
          {builtin.map((i) => (
            <MenuItem key={i.id} value={i.name}>
              {i.name}
              {i.aliases.length > 0 && (
                <Typography component="span" variant="body2" color="text.secondary" sx={{ ml: 1 }}>
                  {i.aliases.join(', ')}
                </Typography>
              )}
            </MenuItem>
          ))}
          {customized.length > 0 && <ListSubheader>Your images</ListSubheader>}
          {customized.map((i) => (
            <MenuItem key={i.id} value={i.name}>
              {i.name}
            </MenuItem>
          ))}
        </TextField>
      </Grid>
      <Grid size={{ xs: 12, md: 5 }}>
        <TextField
          fullWidth
          label="Session name"
          value={name.value}
          onChange={(e) => name.onChange(e.target.value.trim())}
          placeholder="Generated when left empty"
          error={Boolean(nameProblem)}
          helperText={nameProblem ?? ' '}
          slotProps={{ htmlInput: { maxLength: 64, autoComplete: 'off', spellCheck: false } }}
        />
      </Grid>
      {(projects.data?.length ?? 0) > 1 && (
        <Grid size={{ xs: 12, md: 5 }}>
          <TextField select fullWidth label="Project" value={project.value} onChange={(e) => project.onChange(e.target.value)} helperText="Whose resources and scaling groups the session uses" data-testid="project-select">
            {projects.data!.map((p) => (
              <MenuItem key={p.id} value={p.name}>
                {p.name}
              </MenuItem>
            ))}
          </TextField>
        </Grid>
      )}
      {(scalingGroups.data?.scaling_groups.length ?? 0) > 1 && (
        <Grid size={{ xs: 12, md: 7 }}>
          <TextField
            select
            fullWidth
            label="Runs on"
            value={scalingGroup.value}
            onChange={(e) => scalingGroup.onChange(e.target.value)}
            helperText="The scaling group: this machine (default) or a cluster such as Slurm"
            data-testid="scaling-group-select"
          >
            {scalingGroups.data!.scaling_groups.map((g) => (
              <MenuItem key={g.name} value={g.name}>
                {g.name}
              </MenuItem>
            ))}
          </TextField>
        </Grid>
      )}
      {image && (
        <Grid size={12}>
          <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', alignItems: 'center' }}>
            <Typography variant="body2" color="text.secondary">
              Needs at least {formatSlots({ cpu: String(imageMinimum(image, 'cpu')), mem: String(imageMinimum(image, 'mem')) })}
              {apps.length > 0 ? ' · Apps:' : ''}
            </Typography>
            {apps.map((app) => (
              <Chip key={app} size="small" label={app} variant="outlined" />
            ))}
          </Stack>
        </Grid>
      )}
    </Grid>
  );
}
