/**
 * Reaching a kernel from any replica: a kernel launched by another replica on this machine is unknown to this
 * process's agent until it adopts it from the kernel's row (its pid and channel endpoint), which happens here on
 * first use. On one process (PGlite) the agent always knows its kernels and this is a lookup.
 */
import type { App } from '../app';
import type { Agent } from '../agents/agent';
import { isKernelEndpoint } from '../agents/channel/endpoint';

export interface KernelRef {
  id: string;
  agent_id: string | null;
  container_id: string | null;
  channel?: unknown;
}

/**
 * The agent driving the kernel, having adopted the kernel if another replica launched it; undefined if none.
 * Adoption checks that the sandbox lives and its runner answers, so a kernel that is gone stays unknown.
 */
export async function reachKernel(app: App, kernel: KernelRef): Promise<Agent | undefined> {
  const agent = kernel.agent_id ? app.agents.get(kernel.agent_id) : undefined;
  if (!agent || agent.isAlive(kernel.id) || !kernel.container_id) return agent;
  const endpoint = isKernelEndpoint(kernel.channel) ? kernel.channel : null;
  await agent.adoptKernel(kernel.id, kernel.container_id, endpoint).catch(() => false);
  return agent;
}
