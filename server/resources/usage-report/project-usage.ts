/**
 * `GET /resource/usage/month` and `/resource/usage/period` (CONTRACT §12): container usage grouped into one block
 * per project, with the project's sums (`g_*`) next to its containers (`c_infos`).
 */
import type { App } from '../../app';
import { Problem } from '../../http/problem';
import { containerUsages, type ReportRange } from './containers';
import { reportTimeZone, zonedMidnight } from './time-zone';

const MAX_PERIOD_DAYS = 100;

export async function monthUsage(app: App, input: { month: string; group_ids?: string[] }) {
  const match = /^(\d{4})(\d{2})$/.exec(input.month);
  const month = match ? Number(match[2]) : 0;
  if (!match || month < 1 || month > 12) throw new Problem('invalid-api-params', 'month: expected YYYYMM.', { month: 'expected YYYYMM' });
  const timeZone = await reportTimeZone(app);
  const year = Number(match[1]);
  return projectBlocks(app, { start: zonedMidnight(year, month, 1, timeZone), end: zonedMidnight(year, month + 1, 1, timeZone), timeZone, groupIds: input.group_ids });
}

export async function periodUsage(app: App, input: { start_date: string; end_date: string; group_id?: string }) {
  const timeZone = await reportTimeZone(app);
  const start = localDate(input.start_date, 'start_date', timeZone, 0);
  // The end date is inclusive: the period runs to the midnight after it.
  const end = localDate(input.end_date, 'end_date', timeZone, 1);
  if (end <= start) throw new Problem('invalid-api-params', 'end_date must not be before start_date.', { end_date: 'before start_date' });
  if (end.getTime() - start.getTime() > MAX_PERIOD_DAYS * 86_400_000 + 3_600_000) {
    throw new Problem('invalid-api-params', `The period may not exceed ${MAX_PERIOD_DAYS} days.`, { end_date: `more than ${MAX_PERIOD_DAYS} days after start_date` });
  }
  return projectBlocks(app, { start, end, timeZone, groupIds: input.group_id ? [input.group_id] : undefined });
}

function localDate(text: string, field: string, timeZone: string, plusDays: number): Date {
  const match = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  const valid = match && month >= 1 && month <= 12 && day >= 1 && new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
  if (!valid) throw new Problem('invalid-api-params', `${field}: expected YYYYMMDD.`, { [field]: 'expected YYYYMMDD' });
  return zonedMidnight(year, month, day + plusDays, timeZone);
}

/** The container figures a project block sums as `g_<figure>`. */
const SUMMED = [
  'cpu_allocated', 'cpu_used', 'mem_allocated', 'mem_used', 'shared_memory', 'disk_allocated', 'disk_used',
  'io_read', 'io_write', 'smp', 'gpu_mem_allocated', 'gpu_allocated',
] as const;

type Container = Awaited<ReturnType<typeof containerUsages>>[number]['container'];
type ProjectBlock = { domain_name: string; g_id: string; g_name: string; g_device_type: string[]; c_infos: Container[] } & Record<`g_${(typeof SUMMED)[number]}`, number>;

async function projectBlocks(app: App, range: ReportRange): Promise<ProjectBlock[]> {
  const blocks = new Map<string, ProjectBlock>();
  for (const usage of await containerUsages(app, range)) {
    let block = blocks.get(usage.group_id);
    if (!block) {
      block = { domain_name: usage.domain_name, g_id: usage.group_id, g_name: usage.group_name, g_device_type: [], c_infos: [] } as unknown as ProjectBlock;
      for (const figure of SUMMED) block[`g_${figure}`] = 0;
      blocks.set(usage.group_id, block);
    }
    const c = usage.container;
    for (const figure of SUMMED) block[`g_${figure}`] += c[figure];
    for (const type of c.device_type) if (!block.g_device_type.includes(type)) block.g_device_type.push(type);
    block.c_infos.push(c);
  }
  return [...blocks.values()];
}
