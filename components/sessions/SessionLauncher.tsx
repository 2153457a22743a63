'use client';
/**
 * The launcher: image, resources (a preset, or custom CPU and memory checked against what the user may still
 * allocate), interactive or batch with a startup command, cluster size, folders to mount and environment
 * variables. This file holds the form's state and its submit; each section draws itself (launcher/). A refusal
 * from the manager (a frozen manager, a name in use, no resources) is shown with its title and detail.
 */
import { useMemo, useState, type FormEvent } from 'react';
import NextLink from 'next/link';
import { useRouter } from 'next/navigation';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import type { ManagerError } from '@/components/api/problem';
import { ArrowBackIcon } from '@/components/frame/icons';
import { ProblemAlert } from './common';
import { formatSlots, generatedName, sessionNameProblem } from './model';
import { MountPicker, mountPathProblems, type MountChoice } from './MountPicker';
import { launchSession, useImages, useMyProjects, useScalingGroups, usePresets, useResourceCheck } from './useLauncher';
import { EnvironmentFields } from './launcher/EnvironmentFields';
import { ImageFields } from './launcher/ImageFields';
import { LauncherSection } from './launcher/LauncherSection';
import { clusterSizeProblem, customResourceProblems, envProblems, finite, GiB, type EnvRow } from './launcher/launchRules';
import { CUSTOM, ResourceFields } from './launcher/ResourceFields';

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
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<ManagerError | Error | null>(null);
  const [touched, setTouched] = useState(false);

  const imageList = images.data ?? [];
  const defaultImage = imageList.find((i) => !i.is_customized && i.runtime === 'python') ?? imageList[0];
  const image = imageList.find((i) => i.name === imageName) ?? defaultImage;

  const allocatable = useMemo(() => new Map((check.data?.presets ?? []).map((p) => [p.name, p.allocatable])), [check.data]);
  const presetList = presets.data?.presets ?? [];
  const firstAllocatable = presetList.find((p) => allocatable.get(p.name) !== false);
  const selected = choice ?? (presets.data ? (firstAllocatable?.name ?? CUSTOM) : null);
  const preset = presetList.find((p) => p.name === selected);
  const remaining = check.data?.keypair_remaining ?? {};
  const left = { cpu: finite(remaining.cpu), mem: finite(remaining.mem) };

  const size = Number(clusterSize);
  const sizeProblem = clusterSizeProblem(size);
  const nameProblem = name ? sessionNameProblem(name) : null;
  const cpuValue = Number(cpu);
  const memBytes = Number(memGiB) * GiB;
  const resourceProblems = selected === CUSTOM ? customResourceProblems(image, cpuValue, memBytes, left, sizeProblem ? 1 : size) : { cpu: null, mem: null };
  const envRowProblems = envProblems(env);
  const commandProblem = type === 'batch' && !startupCommand.trim() ? 'A batch session needs a command to run.' : null;
  const mountProblem = Object.values(mountPathProblems(mounts)).some(Boolean);
  const invalid = Boolean(
    !image || !selected || nameProblem || sizeProblem || resourceProblems.cpu || resourceProblems.mem || commandProblem || envRowProblems.some(Boolean) || mountProblem,
  );

  async function submit(event: FormEvent) {
    event.preventDefault();
    setTouched(true);
    if (invalid || !image) return;
    setSubmitting(true);
    setError(null);
    const resources = selected === CUSTOM || !preset ? { cpu: String(cpuValue), mem: String(Math.round(memBytes)) } : preset.resource_slots;
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

  const canStillAllocate = formatSlots(Object.fromEntries(Object.entries(remaining).filter(([k]) => k === 'cpu' || k === 'mem')));
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

        <LauncherSection title="Image" description="What the session runs. Each image offers a terminal; some offer apps such as Jupyter.">
          <ImageFields
            images={images}
            image={image}
            onImage={setImageName}
            name={{ value: name, onChange: setName }}
            nameProblem={nameProblem}
            projects={projects}
            project={{ value: project, onChange: setProject }}
            scalingGroups={scalingGroups}
            scalingGroup={{ value: scalingGroup, onChange: setScalingGroup }}
          />
        </LauncherSection>

        <LauncherSection
          title="Resources"
          description={left.cpu !== null || left.mem !== null ? `You can still allocate ${canStillAllocate}.` : 'Pick a preset, or set CPU and memory yourself.'}
        >
          <ResourceFields
            presets={presets}
            check={check}
            allocatable={allocatable}
            selected={selected}
            onSelect={setChoice}
            cpu={{ value: cpu, onChange: setCpu, problem: resourceProblems.cpu }}
            mem={{ value: memGiB, onChange: setMemGiB, problem: resourceProblems.mem }}
            left={left}
            clusterSize={{ value: clusterSize, onChange: setClusterSize, problem: sizeProblem }}
          />
        </LauncherSection>

        <LauncherSection title="Session type" description="Interactive sessions wait for you; batch sessions run a command and end with it.">
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
        </LauncherSection>

        <LauncherSection title="Folders" description="Mounted into every container; what the session writes there outlives it.">
          <MountPicker value={mounts} onChange={setMounts} />
        </LauncherSection>

        <LauncherSection title="Environment variables" description="Set in every container of the session.">
          <EnvironmentFields env={env} problems={envRowProblems} onChange={setEnv} />
        </LauncherSection>

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
