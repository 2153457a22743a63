/**
 * Starts the Slurm backend when BERTH_SLURM_CONF is set: the node mirror (every node of the partition an agent)
 * and one SlurmAgent that serves all of them, so `app.agents.get('slurm-<node>')` finds it.
 */
import path from 'node:path';
import type { App } from '../../app';
import type { SlurmSettings } from '../../config/env';
import { SlurmCommands } from './commands';
import { SlurmNodeMirror } from './nodes';
import { SlurmAgent } from './slurm-agent';

export interface SlurmBackend {
  agent: SlurmAgent;
  stop(): Promise<void>;
}

export async function startSlurmBackend(app: App, settings: SlurmSettings, runnerPath: string, version: string): Promise<SlurmBackend> {
  const commands = new SlurmCommands({ conf: settings.conf });
  const partition = settings.partition ?? (await commands.defaultPartition());
  let agent: SlurmAgent | null = null;
  const mirror = new SlurmNodeMirror(app, commands, {
    partition,
    scalingGroup: settings.scalingGroup,
    version,
    onNode: (agentId) => agent && app.agents.set(agentId, agent),
  });
  agent = new SlurmAgent({
    commands,
    dataDir: app.settings.dataDir,
    runnerPath,
    launcherPath: path.join(path.dirname(runnerPath), '../slurm/job_launcher.py'),
    kernelUid: process.getuid?.() === 0 ? app.settings.kernelUid : null,
    partition,
    account: settings.account,
    nodeAddress: (node) => mirror.address(node),
    knownNodes: () => mirror.nodes(),
    log: app.log,
  });
  await mirror.start();
  app.log.info({ partition, nodes: mirror.nodes(), scalingGroup: settings.scalingGroup }, 'slurm backend ready');
  return {
    agent,
    async stop() {
      mirror.stop();
      await agent!.close();
    },
  };
}
