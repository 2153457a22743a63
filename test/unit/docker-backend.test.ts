/** The docker backend's pure parts: the container request Berth builds, Backend.AI's labels, the Engine API's data. */
import { describe, expect, it } from 'vitest';
import { containerOptions, deviceRequests, type ContainerPlan } from '../../server/agents/docker/container-spec';
import { demuxLogs, statsFrom } from '../../server/agents/docker/engine-data';
import { engineAgentId } from '../../server/agents/docker/engine';
import { engineSlots } from '../../server/agents/docker/register';
import { readSettings } from '../../server/config/env';
import { isArchive, loadedReferences } from '../../server/images/load';
import { imageRuntime, parseServicePortsLabel, registryOf, hasExplicitRegistry } from '../../server/images/image-labels';
import { readTar } from '../../server/images/engine-images';
import type { KernelSpec } from '../../server/agents/agent';
import { connectRunner, registerTransport } from '../../server/agents/channel/connect';
import { isKernelEndpoint } from '../../server/agents/channel/endpoint';
import { openExecChannel } from '../../server/agents/docker/exec-channel';

const spec: KernelSpec = {
  kernelId: 'k1', sessionId: 's1', clusterIdx: 0, clusterSize: 1, singleNode: true, runtime: 'python', image: 'cr.example.com/torch:2',
  hostname: 'main1', hosts: {}, environ: { FOO: 'bar', HOME: '/root' }, limits: { memoryBytes: 2 ** 30, cpus: 1.5, pids: 512, gpus: 2, shmBytes: 2 ** 27 },
  mounts: [{ hostPath: '/data/f1', kernelPath: '/home/work/f1', readOnly: true }, { hostPath: '/data/f2', kernelPath: '/home/work/f2', readOnly: false }], files: [],
};
const plan: ContainerPlan = { spec, image: spec.image!, imagePython: '/usr/bin/python3', uid: 64000, scratchDir: '/d/k1/work', runDir: '/tmp/berth-run/k1', runnerPath: '/b/kernel_runner.py', xterm: [], network: 'berth-session-s1', gpuDriver: 'nvidia' };

describe('the container request', () => {
  const options = containerOptions(plan);
  const host = options.HostConfig!;

  it('confines the kernel: its uid, no capabilities, no new privileges, read-only root, not privileged, its own network only', () => {
    expect(options.User).toBe('64000:64000');
    expect(host.CapDrop).toEqual(['ALL']);
    expect(host.CapAdd ?? []).toEqual([]);
    expect(host.SecurityOpt).toEqual(['no-new-privileges']);
    expect(host.ReadonlyRootfs).toBe(true);
    expect(host.Privileged).toBe(false);
    expect(host.NetworkMode).toBe('berth-session-s1');
    expect(options.NetworkingConfig!.EndpointsConfig!['berth-session-s1'].Aliases).toEqual(['main1']);
    expect(host.Tmpfs).toHaveProperty('/tmp');
  });

  it('sets the limits of the kernel spec', () => {
    expect(host).toMatchObject({ Memory: 2 ** 30, MemorySwap: 2 ** 30, NanoCpus: 1.5e9, PidsLimit: 512, ShmSize: 2 ** 27 });
  });

  it('binds only the scratch directory, the runner\'s socket directory and files, and the folders with their modes', () => {
    expect(host.Binds).toEqual([
      '/d/k1/work:/home/work:rw',
      '/tmp/berth-run/k1:/run/berth:rw',
      '/b/kernel_runner.py:/opt/berth/kernel_runner.py:ro',
      '/b/web_terminal.py:/opt/berth/web_terminal.py:ro',
      ...(host.Binds ?? []).filter((b) => b.includes('/opt/berth/xterm/')),
      '/data/f1:/home/work/f1:ro',
      '/data/f2:/home/work/f2:rw',
    ]);
    expect((host.Binds ?? []).some((b) => b.includes('docker.sock'))).toBe(false);
  });

  it('runs the runner on the image\'s Python with the session environment, HOME kept at /home/work', () => {
    expect(options.Entrypoint).toEqual(['/usr/bin/python3', '-I', '/opt/berth/kernel_runner.py', '/run/berth/kernel.sock', 'python']);
    expect(options.Env).toContain('FOO=bar');
    expect(options.Env).toContain('HOME=/home/work');
    expect(options.Labels).toMatchObject({ 'ai.backend.kernel-id': 'k1', 'ai.backend.session-id': 's1' });
  });

  it('lends the host\'s Python, read-only, to an image without one', () => {
    const bare = containerOptions({ ...plan, imagePython: null });
    expect(bare.Entrypoint![0]).toMatch(/^\/opt\/berth\/host\/lib\/.+\/ld-linux/);
    expect(bare.HostConfig!.Binds!.filter((b) => b.includes(':/opt/berth/host/')).every((b) => b.endsWith(':ro'))).toBe(true);
  });

  it('on a remote engine: the socket directory a tmpfs in the container, the runner files from where the plan says, the interpreter labelled', () => {
    const remote = containerOptions({ ...plan, runDir: null, runnerPath: '/data/runner/0123456789abcdef/kernel_runner.py', xterm: [{ host: '/data/runner/0123456789abcdef/xterm.js', inSandbox: '/opt/berth/xterm/xterm.js' }] });
    expect(remote.HostConfig!.Tmpfs).toHaveProperty('/run/berth');
    expect(remote.HostConfig!.Tmpfs!['/run/berth']).toMatch(/noexec/);
    expect(remote.HostConfig!.Binds!.some((b) => b.includes(':/run/berth'))).toBe(false);
    expect(remote.HostConfig!.Binds).toEqual(expect.arrayContaining([
      '/data/runner/0123456789abcdef/kernel_runner.py:/opt/berth/kernel_runner.py:ro',
      '/data/runner/0123456789abcdef/web_terminal.py:/opt/berth/web_terminal.py:ro',
      '/data/runner/0123456789abcdef/xterm.js:/opt/berth/xterm/xterm.js:ro',
    ]));
    expect(remote.Labels).toMatchObject({ 'berth.runner-python': '/usr/bin/python3' });
    expect(host.Tmpfs).not.toHaveProperty('/run/berth');
  });

  it('maps cuda.device to the Engine API\'s DeviceRequests (docker run --gpus 2), and none without GPUs', () => {
    expect(host.DeviceRequests).toEqual([{ Driver: 'nvidia', Count: 2, Capabilities: [['gpu']], Options: {} }]);
    expect(deviceRequests(0.5, 'nvidia')).toEqual([{ Driver: 'nvidia', Count: 1, Capabilities: [['gpu']], Options: {} }]);
    expect(deviceRequests(undefined, 'nvidia')).toEqual([]);
    expect(containerOptions({ ...plan, spec: { ...spec, limits: { ...spec.limits, gpus: undefined } } }).HostConfig!.DeviceRequests).toEqual([]);
  });
});

describe('Backend.AI\'s image labels', () => {
  it('reads service ports, skipping malformed entries', () => {
    expect(parseServicePortsLabel('jupyter:http:8080,vscode:http:[8180,8181],bad,x:ftp:1,y:tcp:99999,sshd:tcp:2200')).toEqual([
      { name: 'jupyter', protocol: 'http', ports: [8080] },
      { name: 'vscode', protocol: 'http', ports: [8180, 8181] },
      { name: 'sshd', protocol: 'tcp', ports: [2200] },
    ]);
    expect(parseServicePortsLabel(undefined)).toEqual([]);
  });

  it('describes the runtime: python with a runtime path, shell when labelled so, app (no interpreter) otherwise; minimum resources; apps from service-defs', () => {
    const labels = { 'ai.backend.runtime-type': 'python', 'ai.backend.runtime-path': '/opt/conda/bin/python3', 'ai.backend.resource.min.cpu': '1', 'ai.backend.resource.min.mem': '1g', 'ai.backend.service-ports': 'jupyter:http:8080' };
    const described = imageRuntime(labels, { jupyter: { command: ['jupyter', 'notebook', '--port', '{ports[0]}'] } });
    expect(described).toEqual({
      runtime: 'python', runtimePath: '/opt/conda/bin/python3',
      servicePorts: [{ name: 'jupyter', protocol: 'http', ports: [8080], argv: ['jupyter', 'notebook', '--port', '{port}'] }],
      resourceLimits: { cpu: { min: '1' }, mem: { min: '1g' } },
    });
    expect(imageRuntime({ 'ai.backend.runtime-type': 'python' }).runtime).toBe('app');
    expect(imageRuntime({ 'ai.backend.runtime-type': 'shell' }).runtime).toBe('shell');
    expect(imageRuntime({}).runtime).toBe('app');
    expect(imageRuntime({}, {}).servicePorts).toEqual([]);
    expect(imageRuntime({ 'ai.backend.service-ports': 'web:http:80' }, { web: { command: 'not a list' } }).servicePorts).toEqual([{ name: 'web', protocol: 'http', ports: [80] }]);
  });

  it('tells a named registry from a Docker Hub or local name', () => {
    expect(registryOf('cr.example.com/a/b:1')).toBe('cr.example.com');
    expect(registryOf('localhost:5000/a:1')).toBe('localhost:5000');
    expect(registryOf('library/python:3')).toBe('docker.io');
    expect(registryOf('python')).toBe('docker.io');
    expect(hasExplicitRegistry('berth/python:3.11')).toBe(false);
    expect(hasExplicitRegistry('evil.example.com/x')).toBe(true);
  });
});

describe('Engine API data', () => {
  it('demultiplexes container logs, and passes unframed text through', () => {
    const frame = (stream: number, text: string) => Buffer.concat([Buffer.from([stream, 0, 0, 0, 0, 0, 0, text.length]), Buffer.from(text)]);
    expect(demuxLogs(Buffer.concat([frame(1, 'out\n'), frame(2, 'err\n')]))).toBe('out\nerr\n');
    expect(demuxLogs(Buffer.from('plain text'))).toBe('plain text');
  });

  it('reads one-shot stats, with nulls for what the engine does not report', () => {
    expect(statsFrom({ memory_stats: { usage: 100 }, cpu_stats: { cpu_usage: { total_usage: 5e6 } }, pids_stats: { current: 3 }, blkio_stats: { io_service_bytes_recursive: [{ op: 'Read', value: 7 }, { op: 'Write', value: 9 }] } }))
      .toEqual({ memoryBytes: 100, memoryPeakBytes: 100, cpuUsedMs: 5, pids: 3, ioReadBytes: 7, ioWriteBytes: 9 });
    expect(statsFrom({})).toEqual({ memoryBytes: null, memoryPeakBytes: null, cpuUsedMs: null, pids: null, ioReadBytes: null, ioWriteBytes: null });
  });

  it('reads the regular files of a tar archive', () => {
    const header = (name: string, size: number, type = '0') => {
      const h = Buffer.alloc(512);
      h.write(name, 0);
      h.write(size.toString(8).padStart(11, '0'), 124);
      h.write(type, 156);
      return h;
    };
    const body = Buffer.alloc(512);
    body.write('{"command":[]}');
    const archive = Buffer.concat([header('service-defs/', 0, '5'), header('service-defs/web.json', 14), body, Buffer.alloc(1024)]);
    expect(readTar(archive).map((f) => [f.name, f.data.toString()])).toEqual([['service-defs/web.json', '{"command":[]}']]);
  });

  it('names agents after their engines', () => {
    expect(engineAgentId('unix:///var/run/docker.sock')).toBe('docker-var-run-docker.sock');
    expect(engineAgentId('tcp://gpu1.example.com:2376')).toBe('docker-gpu1.example.com-2376');
  });
});

describe('GPUs of an engine', () => {
  const env = { BERTH_DOCKER_HOSTS: 'unix:///run/d.sock' };

  it('offers BERTH_DOCKER_GPUS as cuda.device slots beside the engine\'s CPUs and memory, and none by default', () => {
    expect(readSettings({ ...env, BERTH_DOCKER_GPUS: '4' }).docker!.gpus).toBe(4);
    expect(readSettings(env).docker!.gpus).toBe(0);
    expect(engineSlots({ NCPU: 8, MemTotal: 2 ** 34 }, 4)).toEqual({ cpu: '8', mem: String(2 ** 34), 'cuda.device': '4' });
    expect(engineSlots({ NCPU: 8, MemTotal: 2 ** 34 }, 0)).toEqual({ cpu: '8', mem: String(2 ** 34) });
  });

  it('refuses a BERTH_DOCKER_GPUS that is not a whole number', () => {
    for (const bad of ['-1', '1.5', 'two']) expect(() => readSettings({ ...env, BERTH_DOCKER_GPUS: bad })).toThrow(/BERTH_DOCKER_GPUS/);
  });
});

describe('docker save archives', () => {
  it('knows a tar (ustar magic) and a gzip by their first bytes, and nothing else', () => {
    const tar = Buffer.alloc(512);
    tar.write('ustar', 257, 'latin1');
    expect(isArchive(tar)).toBe(true);
    expect(isArchive(Buffer.from([0x1f, 0x8b, 8, 0]))).toBe(true);
    expect(isArchive(Buffer.from('{"not":"a tar"}'))).toBe(false);
    expect(isArchive(Buffer.alloc(0))).toBe(false);
  });

  it('reads the tagged images the engine reports loaded, not untagged ids', () => {
    expect(loadedReferences('Loaded image: a/b:1\nLoaded image ID: sha256:abc\nLoaded image: c:latest\n')).toEqual(['a/b:1', 'c:latest']);
  });
});

describe('the docker-exec kernel endpoint', () => {
  const endpoint = { kind: 'docker-exec', engine: 'tcp://gpu1:2376', container: 'c1', socket: '/run/berth/kernel.sock', user: '64000:64000', python: '/usr/bin/python3' } as const;

  it('is a kernel endpoint as stored on a kernel row, and only with all its fields', () => {
    expect(isKernelEndpoint(endpoint)).toBe(true);
    expect(isKernelEndpoint({ ...endpoint, python: undefined })).toBe(false);
    expect(isKernelEndpoint({ ...endpoint, kind: 'docker-shell' })).toBe(false);
  });

  it('is opened by the transport its backend registered, which refuses an engine this manager does not drive', async () => {
    registerTransport('docker-exec', openExecChannel);
    await expect(connectRunner(endpoint, { op: 'ping' })).rejects.toThrow(/tcp:\/\/gpu1:2376 is not one this manager drives/);
  });
});
