/**
 * Mirrors a Slurm partition's nodes as Berth agents, every few seconds: id `slurm-<node>`, the node's address,
 * its CPUs, memory and GPUs (GRES) as slots, ALIVE while Slurm says it can run work and LOST otherwise (also
 * when it left the partition). Output Berth cannot read is logged and skipped, never fatal.
 */
import type { App } from '../../app';
import { ensureScalingGroup } from '../../resources/ensure-scaling-group';
import { json } from '../../db';
import type { SlurmCommands } from './commands';
import type { SlurmNode } from './parse';

export const REFRESH_MS = 5_000;

export function nodeAgentId(node: string): string {
  return `slurm-${node}`;
}

export function nodeSlots(node: SlurmNode): Record<string, string> {
  const slots: Record<string, string> = { cpu: String(node.cpus), mem: String(node.realMemoryMb * 2 ** 20) };
  if (node.gres.gpu) slots['cuda.device'] = String(node.gres.gpu);
  return slots;
}

export class SlurmNodeMirror {
  private readonly addresses = new Map<string, string>();
  private alive = '';
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly app: App,
    private readonly commands: SlurmCommands,
    private readonly options: { partition: string | null; scalingGroup: string; version: string; onNode(agentId: string): void },
  ) {}

  address(node: string): string | undefined {
    return this.addresses.get(node);
  }

  nodes(): string[] {
    return [...this.addresses.keys()];
  }

  /** Reads the partition once (so its nodes are agents before anything is scheduled), then keeps it current. */
  async start(): Promise<void> {
    await ensureScalingGroup(this.app, this.options.scalingGroup, 'Sessions run as Slurm jobs');
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  refresh(): Promise<void> {
    this.refreshing ??= this.read().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private async read(): Promise<void> {
    let listed: { nodes: SlurmNode[]; errors: string[] };
    try {
      listed = await this.commands.nodes(this.options.partition ?? undefined);
    } catch (err) {
      this.app.log.warn({ err }, 'reading Slurm nodes failed');
      return;
    }
    for (const error of listed.errors) this.app.log.warn({ error }, 'skipped a Slurm node Berth cannot read');
    const now = new Date();
    for (const node of listed.nodes) {
      this.addresses.set(node.name, node.addr);
      const id = nodeAgentId(node.name);
      this.options.onNode(id);
      const status = node.alive ? 'ALIVE' : 'LOST';
      await this.app.db
        .insertInto('agents')
        .values({
          id,
          status,
          status_changed: now,
          scaling_group: this.options.scalingGroup,
          available_slots: json(nodeSlots(node)),
          occupied_slots: json({}),
          addr: node.addr,
          version: this.options.version,
          architecture: 'x86_64',
          compute_plugins: json(node.gres.gpu ? { cpu: {}, cuda: {} } : { cpu: {} }),
          backend: 'slurm',
          last_heartbeat: now,
          lost_at: node.alive ? null : now,
        })
        .onConflict((oc) =>
          oc.column('id').doUpdateSet((eb) => ({
            status,
            // Only a change of status moves status_changed and lost_at.
            status_changed: eb.case().when('agents.status', '=', status).then(eb.ref('agents.status_changed')).else(now).end(),
            lost_at: node.alive ? null : eb.fn.coalesce('agents.lost_at', eb.val(now)),
            available_slots: json(nodeSlots(node)),
            addr: node.addr,
            scaling_group: this.options.scalingGroup,
            last_heartbeat: now,
          })),
        )
        .execute();
    }
    // A node that left the partition is lost to Berth.
    const present = listed.nodes.map((n) => nodeAgentId(n.name));
    let gone = this.app.db.updateTable('agents').set({ status: 'LOST', status_changed: now, lost_at: now }).where('backend', '=', 'slurm').where('scaling_group', '=', this.options.scalingGroup).where('status', '=', 'ALIVE');
    if (present.length) gone = gone.where('id', 'not in', present);
    const lost = await gone.executeTakeFirst();
    // Capacity came or went: pending sessions may now fit (or must stop counting on a node).
    const alive = listed.nodes.filter((n) => n.alive).map((n) => n.name).join(',');
    if (alive !== this.alive || Number(lost.numUpdatedRows) > 0) this.app.triggerScheduler();
    this.alive = alive;
  }
}
