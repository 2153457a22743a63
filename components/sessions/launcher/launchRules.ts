/**
 * What the launcher checks before it asks the manager: the image's minimum resources, custom amounts against what
 * the user may still allocate, the cluster size and environment variable names. Each check answers with the
 * sentence shown under its field, or null.
 */
import { formatBytes } from '../model';
import type { ImageChoice } from '../useLauncher';

export const GiB = 1024 ** 3;
export const MAX_CLUSTER_SIZE = 64;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface EnvRow {
  id: number;
  key: string;
  value: string;
}

export function imageMinimum(image: ImageChoice | undefined, slot: string): number {
  const limit = image?.resource_limits.find((l) => l.key === slot);
  return limit?.min ? Number(limit.min) : 0;
}

export function imageApps(image: ImageChoice | undefined): string[] {
  if (!image) return [];
  try {
    return (JSON.parse(image.service_ports) as { name: string }[]).map((p) => p.name);
  } catch {
    return [];
  }
}

/** A finite remainder amount, or null when unlimited or unknown. */
export function finite(value: string | undefined): number | null {
  if (value === undefined) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

export function clusterSizeProblem(size: number): string | null {
  return !Number.isInteger(size) || size < 1 || size > MAX_CLUSTER_SIZE ? `Use a whole number from 1 to ${MAX_CLUSTER_SIZE}.` : null;
}

/** Custom CPU and memory: above 0, at least the image's minimum, and within what is left for `times` containers. */
export function customResourceProblems(
  image: ImageChoice | undefined,
  cpu: number,
  memBytes: number,
  left: { cpu: number | null; mem: number | null },
  times: number,
): { cpu: string | null; mem: string | null } {
  const across = times > 1 ? ` across ${times} containers` : '';
  let cpuProblem: string | null = null;
  let memProblem: string | null = null;
  if (!(cpu > 0)) cpuProblem = 'Enter a number of CPU cores above 0.';
  else if (cpu < imageMinimum(image, 'cpu')) cpuProblem = `This image needs at least ${imageMinimum(image, 'cpu')} CPU.`;
  else if (left.cpu !== null && cpu * times > left.cpu) cpuProblem = `Only ${left.cpu} CPU left for you${across}.`;
  if (!(memBytes > 0)) memProblem = 'Enter an amount of memory above 0.';
  else if (memBytes < imageMinimum(image, 'mem')) memProblem = `This image needs at least ${formatBytes(imageMinimum(image, 'mem'))}.`;
  else if (left.mem !== null && memBytes * times > left.mem) memProblem = `Only ${formatBytes(left.mem)} of memory left for you${across}.`;
  return { cpu: cpuProblem, mem: memProblem };
}

/** Per row: the name's problem (a bad name, or one set above), or null. */
export function envProblems(env: EnvRow[]): (string | null)[] {
  const duplicate = new Set(env.map((r) => r.key).filter((k, i, all) => k && all.indexOf(k) !== i));
  return env.map((row) => {
    if (row.key && !ENV_NAME.test(row.key)) return 'Letters, digits and _, not starting with a digit.';
    return duplicate.has(row.key) ? 'Already set above.' : null;
  });
}
