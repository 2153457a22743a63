/** The host side of a running session's /home/work: its main kernel's scratch directory and the kernel's uid. */
import type { App } from '../../app';
import type { Kernel, Session } from '../../db/schema';
import { Problem } from '../../http/problem';
import { mainKernel } from '../execute';
import { scratchRoot } from '../../host-path/kernel-home';

export interface Scratch {
  kernel: Kernel;
  /** The real host path of /home/work. */
  root: string;
  /** Files written for the kernel are owned by this uid; null when Berth is not root (it is the kernel's uid then). */
  uid: number | null;
}

export function kernelUid(app: App): number | null {
  return process.getuid?.() === 0 ? app.settings.kernelUid : null;
}

export async function sessionScratch(app: App, session: Session): Promise<Scratch> {
  const kernel = await mainKernel(app, session);
  const agent = app.agents.get(kernel.agent_id!);
  if (!agent) throw new Problem('kernel-execution-failed', 'The session has no running kernel.');
  return { kernel, root: scratchRoot(agent.scratchDir(kernel.id)), uid: kernelUid(app) };
}
