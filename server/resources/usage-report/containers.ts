/**
 * The per-container rows of a usage report (CONTRACT §12 `Container`): every kernel that ended inside the period,
 * plus the ones created before its end that still run (their `used_time` is null). Figures come from the slots a
 * kernel held and the last statistics stored when it ended.
 */
import type { App } from '../../app';
import { statNumber } from '../../sessions/kernel-stats';
import { gpuAmount, parseAmount, toAmounts } from '../slots';
import { TERMINAL } from '../../sessions/states';
import { localDayNumber } from './time-zone';

export interface ReportRange {
  start: Date;
  end: Date;
  timeZone: string;
  /** Only these projects, when given. */
  groupIds?: string[];
}


export type ContainerUsage = Awaited<ReturnType<typeof containerUsages>>[number];

export async function containerUsages(app: App, range: ReportRange) {
  let query = app.db
    .selectFrom('kernels as k')
    .innerJoin('sessions as s', 's.id', 'k.session_id')
    .innerJoin('users as u', 'u.uuid', 's.user_uuid')
    .innerJoin('groups as g', 'g.id', 's.group_id')
    .select([
      'k.id', 'k.session_id', 'k.container_id', 'k.agent_id', 'k.occupied_slots', 'k.last_stat', 'k.status', 'k.status_info',
      'k.status_changed', 'k.status_history', 'k.created_at', 'k.terminated_at',
      's.name as session_name', 's.access_key', 's.image', 's.cluster_mode', 's.resource_opts', 's.mounts', 's.domain_name', 's.group_id',
      'u.email', 'u.full_name', 'g.name as group_name',
    ])
    .where((eb) =>
      eb.or([
        eb.and([eb('k.terminated_at', '>=', range.start), eb('k.terminated_at', '<', range.end)]),
        eb.and([eb('k.terminated_at', 'is', null), eb('k.created_at', '<', range.end), eb('k.status', 'not in', [...TERMINAL])]),
      ]),
    );
  if (range.groupIds) query = query.where('s.group_id', 'in', range.groupIds.length ? range.groupIds : ['00000000-0000-0000-0000-000000000000']);
  const rows = await query.orderBy('k.created_at').execute();
  return rows.map((row) => {
    const slots = toAmounts(row.occupied_slots);
    const deviceTypes = Object.keys(slots).filter((slot) => slot !== 'cpu' && slot !== 'mem' && slots[slot] > 0);
    const ended = row.terminated_at ? new Date(row.terminated_at) : null;
    const created = new Date(row.created_at);
    const shm = parseAmount((row.resource_opts as Record<string, unknown>)?.shmem);
    return {
      domain_name: row.domain_name,
      group_id: row.group_id,
      group_name: row.group_name,
      container: {
        id: row.id,
        session_id: row.session_id,
        container_id: row.container_id,
        name: row.session_name,
        access_key: row.access_key,
        email: row.email,
        full_name: row.full_name,
        agent: row.agent_id,
        cpu_allocated: slots.cpu ?? 0,
        cpu_used: statNumber(row.last_stat, 'cpu_used'),
        mem_allocated: slots.mem ?? 0,
        mem_used: statNumber(row.last_stat, 'mem', 'max'),
        shared_memory: Number.isFinite(shm) ? shm : 0,
        disk_allocated: 0,
        disk_used: statNumber(row.last_stat, 'io_scratch_size'),
        io_read: statNumber(row.last_stat, 'io_read'),
        io_write: statNumber(row.last_stat, 'io_write'),
        used_time: ended ? durationText(ended.getTime() - created.getTime()) : null,
        used_days: localDayNumber(ended ?? new Date(), range.timeZone) - localDayNumber(created, range.timeZone) + 1,
        device_type: deviceTypes,
        smp: slots.cpu ?? 0,
        gpu_mem_allocated: slots['cuda.mem'] ?? 0,
        gpu_allocated: gpuAmount(slots),
        nfs: (row.mounts ?? []).map((mount) => mount.name),
        image_name: row.image,
        created_at: created.toISOString(),
        terminated_at: ended?.toISOString() ?? null,
        status: row.status,
        status_info: row.status_info,
        status_changed: new Date(row.status_changed).toISOString(),
        status_history: row.status_history,
        cluster_mode: row.cluster_mode,
      },
    };
  });
}

/** A duration as Python's timedelta prints it: "1 day, 2:03:04.123456" (the form clients of this report parse). */
export function durationText(ms: number): string {
  const totalMicros = Math.max(0, Math.round(ms * 1000));
  const days = Math.floor(totalMicros / 86_400_000_000);
  let rest = totalMicros - days * 86_400_000_000;
  const hours = Math.floor(rest / 3_600_000_000);
  rest -= hours * 3_600_000_000;
  const minutes = Math.floor(rest / 60_000_000);
  rest -= minutes * 60_000_000;
  const seconds = Math.floor(rest / 1_000_000);
  const micros = rest - seconds * 1_000_000;
  const clock = `${hours}:${String(minutes).padStart(2, '0')}:${String(seconds).padStart(2, '0')}${micros ? `.${String(micros).padStart(6, '0')}` : ''}`;
  return days ? `${days} day${days === 1 ? '' : 's'}, ${clock}` : clock;
}
