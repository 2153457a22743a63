/**
 * `GET /resource/stats/user/month` and `/resource/stats/admin/month` (CONTRACT §12): the last 30 days in 2,880
 * bins of 15 minutes, oldest first. Each ended session adds its allocation to every bin its lifetime overlaps.
 */
import type { App } from '../../app';
import { statNumber } from '../../sessions/kernel-stats';
import { gpuAmount, toAmounts } from '../slots';
import { TERMINAL } from '../../sessions/states';

const BIN_SECONDS = 15 * 60;
const BIN_COUNT = 30 * 24 * 4;

type Figure = { value: number; unit_hint: 'count' | 'bytes' };
export interface StatBin {
  date: number;
  num_sessions: Figure;
  cpu_allocated: Figure;
  mem_allocated: Figure;
  gpu_allocated: Figure;
  io_read_bytes: Figure;
  io_write_bytes: Figure;
  disk_used: Figure;
}

/** Bins for one user's sessions (`userId`), or everyone's when it is omitted. */
export async function monthlyStats(app: App, userId?: string, now = Date.now()): Promise<StatBin[]> {
  // Bins end at the next quarter hour, so the newest one holds "now".
  const endSeconds = Math.ceil(now / 1000 / BIN_SECONDS) * BIN_SECONDS;
  const startSeconds = endSeconds - BIN_COUNT * BIN_SECONDS;
  const bins = Array.from({ length: BIN_COUNT }, (_, i) => emptyBin(startSeconds + i * BIN_SECONDS));
  let query = app.db
    .selectFrom('kernels as k')
    .innerJoin('sessions as s', 's.id', 'k.session_id')
    .select(['k.session_id', 'k.occupied_slots', 'k.last_stat', 'k.created_at', 'k.terminated_at'])
    .where('k.terminated_at', '>=', new Date(startSeconds * 1000))
    .where('k.created_at', '<', new Date(endSeconds * 1000))
    .where('k.status', 'in', [...TERMINAL]);
  if (userId) query = query.where('s.user_uuid', '=', userId);
  const counted = new Set<string>();
  for (const kernel of await query.execute()) {
    const slots = toAmounts(kernel.occupied_slots);
    const from = Math.max(0, Math.floor((new Date(kernel.created_at).getTime() / 1000 - startSeconds) / BIN_SECONDS));
    const to = Math.min(BIN_COUNT - 1, Math.floor((new Date(kernel.terminated_at!).getTime() / 1000 - startSeconds) / BIN_SECONDS));
    const firstKernel = !counted.has(kernel.session_id);
    counted.add(kernel.session_id);
    for (let i = from; i <= to; i++) {
      const bin = bins[i];
      if (firstKernel) bin.num_sessions.value += 1;
      bin.cpu_allocated.value += slots.cpu ?? 0;
      bin.mem_allocated.value += slots.mem ?? 0;
      bin.gpu_allocated.value += gpuAmount(slots);
      bin.io_read_bytes.value += statNumber(kernel.last_stat, 'io_read');
      bin.io_write_bytes.value += statNumber(kernel.last_stat, 'io_write');
      bin.disk_used.value += statNumber(kernel.last_stat, 'io_scratch_size');
    }
  }
  return bins;
}

function emptyBin(date: number): StatBin {
  const count = (): Figure => ({ value: 0, unit_hint: 'count' });
  const bytes = (): Figure => ({ value: 0, unit_hint: 'bytes' });
  return {
    date,
    num_sessions: count(),
    cpu_allocated: count(),
    mem_allocated: bytes(),
    gpu_allocated: count(),
    io_read_bytes: bytes(),
    io_write_bytes: bytes(),
    disk_used: bytes(),
  };
}
