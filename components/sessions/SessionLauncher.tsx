'use client';
/**
 * The launcher: image, resources (a preset, or custom CPU and memory checked against what the user may still
 * allocate), interactive or batch with a startup command, cluster size, folders to mount and environment
 * variables. A refusal
 * from the manager (a frozen manager, a name in use, no resources) is shown with its title and detail.
 */
import { useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import NextLink from 'next/link';
import { useRouter } from 'next/navigation';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActionArea from '@mui/material/CardActionArea';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Grid from '@mui/material/Grid';
import IconButton from '@mui/material/IconButton';
import ListSubheader from '@mui/material/ListSubheader';
import MenuItem from '@mui/material/MenuItem';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import type { ManagerError } from '@/components/api/problem';
import { AddIcon, ArrowBackIcon, CloseIcon } from '@/components/frame/icons';
import { ProblemAlert, useDelayed } from './common';
import { formatBytes, formatSlots, generatedName, sessionNameProblem } from './model';
import { MountPicker, mountPathProblems, type MountChoice } from './MountPicker';
import { launchSession, useImages, useMyProjects, useScalingGroups, usePresets, useResourceCheck, type ImageChoice, type Preset } from './useLauncher';

const GiB = 1024 ** 3;
const CUSTOM = '__custom__';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_CLUSTER_SIZE = 64;

interface EnvRow {
  id: number;
  key: string;
  value: string;
}

function Section({ title, description, children }: { title: string; description?: string; children: ReactNode }) {
  return (
    <Card variant="outlined" component="section" aria-label={title}>
      <CardContent>
        <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
          {title}
        </Typography>
        {description && (
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
            {description}
          </Typography>
        )}
        {children}
      </CardContent>
    </Card>
  );
}

function imageMinimum(image: ImageChoice | undefined, slot: string): number {
  const limit = image?.resource_limits.find((l) => l.key === slot);
  return limit?.min ? Number(limit.min) : 0;
}

function imageApps(image: ImageChoice | undefined): string[] {
  if (!image) return [];
  try {
    return (JSON.parse(image.service_ports) as { name: string }[]).map((p) => p.name);
  } catch {
    return [];
  }
}

/** A finite remainder amount, or null when unlimited or unknown. */
function finite(value: string | undefined): number | null {
  if (value === undefined) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** One amount of the custom resources: its problem, or else how much of it is left for the user. */
function AmountField({ label, value, onChange, problem, left, min, step }: { label: string; value: string; onChange: (value: string) => void; problem: string | null; left: string | null; min: number; step: number }) {
  return (
    <Grid size={{ xs: 12, sm: 6 }}>
      <TextField
        fullWidth
        label={label}
        type="number"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        error={Boolean(problem)}
        helperText={problem ?? (left !== null ? `${left} left` : ' ')}
        slotProps={{ htmlInput: { min, step } }}
      />
    </Grid>
  );
}

function PresetCard({
  preset,
  allocatable,
  selected,
  onSelect,
}: {
  preset: Preset;
  allocatable: boolean | undefined;
  selected: boolean;
  onSelect: () => void;
}) {
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

export function SessionLauncher() {
  const router = useRouter();
  const images = useImages();
  const presets = usePresets();
  const check = useResourceCheck();
  const projects = useMyProjects();
  const [chosenProject, setProject] = useState('default');
  // A user outside the default project launches in their first project until they pick one.
  const project = projects.data?.length && !projects.data.some((p) => p.name === chosenProject) ? projects.data[0].name : chosenProject;
  const scalingGroups = useScalingGroups(project);
  const [scalingGroup, setScalingGroup] = useState('default');

  const [name, setName] = useState('');
  const [imageName, setImageName] = useState<string | null>(null);
  const [type, setType] = useState<'interactive' | 'batch'>('interactive');
  const [startupCommand, setStartupCommand] = useState('');
  const [choice, setChoice] = useState<string | null>(null);
  const [cpu, setCpu] = useState('1');
  const [memGiB, setMemGiB] = useState('1');
  const [clusterSize, setClusterSize] = useState('1');
  const [env, setEnv] = useState<EnvRow[]>([]);
  const [mounts, setMounts] = useState<MountChoice>({});
  const nextEnvId = useRef(1);
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<ManagerError | Error | null>(null);
  const [touched, setTouched] = useState(false);

  const imageList = useMemo(() => images.data ?? [], [images.data]);
  const builtin = imageList.filter((i) => !i.is_customized);
  const customized = imageList.filter((i) => i.is_customized);
  const defaultImage = builtin.find((i) => i.runtime === 'python') ?? imageList[0];
  const image = imageList.find((i) => i.name === imageName) ?? defaultImage;

  const allocatable = useMemo(() => new Map((check.data?.presets ?? []).map((p) => [p.name, p.allocatable])), [check.data]);
  const presetList = presets.data?.presets ?? [];
  const firstAllocatable = presetList.find((p) => allocatable.get(p.name) !== false);
  const selected = choice ?? (presets.data ? (firstAllocatable?.name ?? CUSTOM) : null);
  const preset = presetList.find((p) => p.name === selected);
  const remaining = check.data?.keypair_remaining ?? {};

  const size = Number(clusterSize);
  const sizeProblem = !Number.isInteger(size) || size < 1 || size > MAX_CLUSTER_SIZE ? `Use a whole number from 1 to ${MAX_CLUSTER_SIZE}.` : null;
  const nameProblem = name ? sessionNameProblem(name) : null;

  const cpuValue = Number(cpu);
  const memBytes = Number(memGiB) * GiB;
  const cpuLeft = finite(remaining.cpu);
  const memLeft = finite(remaining.mem);
  const times = sizeProblem ? 1 : size;
  let cpuProblem: string | null = null;
  let memProblem: string | null = null;
  if (selected === CUSTOM) {
    if (!(cpuValue > 0)) cpuProblem = 'Enter a number of CPU cores above 0.';
    else if (cpuValue < imageMinimum(image, 'cpu')) cpuProblem = `This image needs at least ${imageMinimum(image, 'cpu')} CPU.`;
    else if (cpuLeft !== null && cpuValue * times > cpuLeft) cpuProblem = `Only ${cpuLeft} CPU left for you${times > 1 ? ` across ${times} containers` : ''}.`;
    if (!(memBytes > 0)) memProblem = 'Enter an amount of memory above 0.';
    else if (memBytes < imageMinimum(image, 'mem')) memProblem = `This image needs at least ${formatBytes(imageMinimum(image, 'mem'))}.`;
    else if (memLeft !== null && memBytes * times > memLeft) memProblem = `Only ${formatBytes(memLeft)} of memory left for you${times > 1 ? ` across ${times} containers` : ''}.`;
  }
  const envProblems = env.map((row) => (row.key && !ENV_NAME.test(row.key) ? 'Letters, digits and _, not starting with a digit.' : null));
  const duplicateEnv = new Set(env.map((r) => r.key).filter((k, i, all) => k && all.indexOf(k) !== i));
  const commandProblem = type === 'batch' && !startupCommand.trim() ? 'A batch session needs a command to run.' : null;
  const mountProblem = Object.values(mountPathProblems(mounts)).some(Boolean);
  const invalid = Boolean(
    !image || !selected || nameProblem || sizeProblem || cpuProblem || memProblem || commandProblem || envProblems.some(Boolean) || duplicateEnv.size || mountProblem,
  );

  const loadingChoices = useDelayed(!images.data && !images.error);
  const loadingPresets = useDelayed(!presets.data && !presets.error);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setTouched(true);
    if (invalid || !image) return;
    setSubmitting(true);
    setError(null);
    const resources =
      selected === CUSTOM || !preset ? { cpu: String(cpuValue), mem: String(Math.round(memBytes)) } : preset.resource_slots;
    try {
      const created = await launchSession({
        name: name || generatedName(image.name),
        image: image.name,
        type,
        startupCommand: startupCommand.trim(),
        cluster_size: size,
        resources,
        sharedMemory: selected !== CUSTOM ? preset?.shared_memory : null,
        environ: Object.fromEntries(env.filter((r) => r.key).map((r) => [r.key, r.value])),
        mounts,
        scalingGroup,
        project,
      });
      router.push(`/sessions/${created.sessionId}`);
    } catch (err) {
      setError(err as ManagerError);
      setSubmitting(false);
    }
  }

  return (
    <Box component="form" onSubmit={submit} noValidate sx={{ maxWidth: 960 }}>
      <Stack spacing={3}>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <IconButton component={NextLink} href="/sessions" aria-label="Back to sessions" edge="start">
            <ArrowBackIcon />
          </IconButton>
          <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }}>
            New session
          </Typography>
        </Stack>

        <Section title="Image" description="What the session runs. Each image offers a terminal; some offer apps such as Jupyter.">
          {images.error ? (
            <ProblemAlert error={images.error} />
          ) : !images.data ? (
            loadingChoices ? <Skeleton variant="rounded" height={56} /> : <Box sx={{ height: 56 }} />
          ) : (
            <Grid container spacing={2}>
              <Grid size={{ xs: 12, md: 7 }}>
                <TextField
                  select
                  fullWidth
                  label="Image"
                  value={image?.name ?? ''}
                  onChange={(e) => setImageName(e.target.value)}
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
                  value={name}
                  onChange={(e) => setName(e.target.value.trim())}
                  placeholder="Generated when left empty"
                  error={Boolean(nameProblem)}
                  helperText={nameProblem ?? ' '}
                  slotProps={{ htmlInput: { maxLength: 64, autoComplete: 'off', spellCheck: false } }}
                />
              </Grid>
              {(projects.data?.length ?? 0) > 1 && (
                <Grid size={{ xs: 12, md: 5 }}>
                  <TextField select fullWidth label="Project" value={project} onChange={(e) => setProject(e.target.value)} helperText="Whose resources and scaling groups the session uses" data-testid="project-select">
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
                    value={scalingGroup}
                    onChange={(e) => setScalingGroup(e.target.value)}
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
                      {imageApps(image).length > 0 ? ' · Apps:' : ''}
                    </Typography>
                    {imageApps(image).map((app) => (
                      <Chip key={app} size="small" label={app} variant="outlined" />
                    ))}
                  </Stack>
                </Grid>
              )}
            </Grid>
          )}
        </Section>

        <Section
          title="Resources"
          description={
            cpuLeft !== null || memLeft !== null
              ? `You can still allocate ${formatSlots(Object.fromEntries(Object.entries(remaining).filter(([k]) => k === 'cpu' || k === 'mem')))}.`
              : 'Pick a preset, or set CPU and memory yourself.'
          }
        >
          {presets.error && <ProblemAlert error={presets.error} />}
          {check.error && <ProblemAlert severity="warning" error={check.error} />}
          {!presets.data && !presets.error ? (
            loadingPresets ? <Skeleton variant="rounded" height={88} /> : <Box sx={{ height: 88 }} />
          ) : (
            <Grid container spacing={2} role="radiogroup" aria-label="Resource preset">
              {presetList.map((p) => (
                <Grid key={p.name} size={{ xs: 12, sm: 6, md: 3 }}>
                  <PresetCard preset={p} allocatable={allocatable.get(p.name)} selected={selected === p.name} onSelect={() => setChoice(p.name)} />
                </Grid>
              ))}
              <Grid size={{ xs: 12, sm: 6, md: 3 }}>
                <PresetCard
                  preset={{ name: 'Custom', resource_slots: {}, shared_memory: null }}
                  allocatable={undefined}
                  selected={selected === CUSTOM}
                  onSelect={() => setChoice(CUSTOM)}
                />
              </Grid>
            </Grid>
          )}
          {selected === CUSTOM && (
            <Grid container spacing={2} sx={{ mt: 1 }}>
              <AmountField label="CPU cores" value={cpu} onChange={setCpu} problem={cpuProblem} left={cpuLeft !== null ? String(cpuLeft) : null} min={0.5} step={0.5} />
              <AmountField
                label="Memory (GiB)"
                value={memGiB}
                onChange={setMemGiB}
                problem={memProblem}
                left={memLeft !== null ? formatBytes(memLeft) : null}
                min={0.125}
                step={0.25}
              />
            </Grid>
          )}
          <TextField
            label="Containers"
            type="number"
            value={clusterSize}
            onChange={(e) => setClusterSize(e.target.value)}
            error={Boolean(sizeProblem)}
            helperText={sizeProblem ?? 'More than one makes a cluster on one node; each container gets these resources.'}
            slotProps={{ htmlInput: { min: 1, max: MAX_CLUSTER_SIZE, step: 1 } }}
            sx={{ mt: 3, width: { xs: '100%', sm: 320 } }}
          />
        </Section>

        <Section title="Session type" description="Interactive sessions wait for you; batch sessions run a command and end with it.">
          <ToggleButtonGroup exclusive value={type} onChange={(_e, v: 'interactive' | 'batch' | null) => v && setType(v)} aria-label="Session type" size="small">
            <ToggleButton value="interactive">Interactive</ToggleButton>
            <ToggleButton value="batch">Batch</ToggleButton>
          </ToggleButtonGroup>
          {type === 'batch' && (
            <TextField
              fullWidth
              multiline
              minRows={2}
              label="Startup command"
              placeholder="python train.py --epochs 10"
              value={startupCommand}
              onChange={(e) => setStartupCommand(e.target.value)}
              error={touched && Boolean(commandProblem)}
              helperText={(touched && commandProblem) || 'Runs in /home/work; the session ends when it exits.'}
              sx={{ mt: 2 }}
              slotProps={{ htmlInput: { spellCheck: false, style: { fontFamily: 'monospace' } } }}
            />
          )}
        </Section>

        <Section title="Folders" description="Mounted into every container; what the session writes there outlives it.">
          <MountPicker value={mounts} onChange={setMounts} />
        </Section>

        <Section title="Environment variables" description="Set in every container of the session.">
          <Stack spacing={2}>
            {env.map((row, index) => (
              <Stack key={row.id} direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: { sm: 'flex-start' } }}>
                <TextField
                  label="Name"
                  value={row.key}
                  onChange={(e) => setEnv(env.map((r) => (r.id === row.id ? { ...r, key: e.target.value.trim() } : r)))}
                  error={Boolean(envProblems[index]) || duplicateEnv.has(row.key)}
                  helperText={envProblems[index] ?? (duplicateEnv.has(row.key) ? 'Already set above.' : ' ')}
                  slotProps={{ htmlInput: { spellCheck: false, style: { fontFamily: 'monospace' } } }}
                  sx={{ flex: 1 }}
                />
                <TextField
                  label="Value"
                  value={row.value}
                  onChange={(e) => setEnv(env.map((r) => (r.id === row.id ? { ...r, value: e.target.value } : r)))}
                  helperText=" "
                  slotProps={{ htmlInput: { spellCheck: false, style: { fontFamily: 'monospace' } } }}
                  sx={{ flex: 2 }}
                />
                <IconButton aria-label={`Remove ${row.key || 'variable'}`} onClick={() => setEnv(env.filter((r) => r.id !== row.id))} sx={{ mt: { sm: 1 } }}>
                  <CloseIcon />
                </IconButton>
              </Stack>
            ))}
            <Box>
              <Button startIcon={<AddIcon />} onClick={() => setEnv([...env, { id: nextEnvId.current++, key: '', value: '' }])}>
                Add variable
              </Button>
            </Box>
          </Stack>
        </Section>

        {error && <ProblemAlert error={error} testId="launch-error" />}

        <Stack direction="row" spacing={2} sx={{ justifyContent: 'flex-end' }}>
          <Button component={NextLink} href="/sessions" disabled={submitting}>
            Cancel
          </Button>
          <Button
            type="submit"
            variant="contained"
            size="large"
            disabled={submitting || (touched && invalid) || !images.data}
            startIcon={submitting ? <CircularProgress size={18} color="inherit" /> : undefined}
          >
            {submitting ? 'Launching…' : 'Launch'}
          </Button>
        </Stack>
      </Stack>
    </Box>
  );
}
