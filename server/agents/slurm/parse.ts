/**
 * Parsers for Slurm's one-line (`-o`) `scontrol show` output and squeue's JSON: pure functions, no I/O. Output we do
 * not understand (an odd node name, a number that is not one, a job record that cannot be read unambiguously) is
 * reported, never thrown; keys we do not know are ignored, so newer Slurm versions that add fields still parse.
 *
 * The `-o` format is `Key=Value` pairs separated by spaces, and some values hold spaces and `=` themselves (a node's
 * OS and Reason, a job's name, comment and command line, which users choose). Those free-text keys end only at the
 * key Slurm prints after them; every other value ends at the next `Key=`; the first occurrence of a key wins.
 */

export interface SlurmNode {
  name: string;
  addr: string;
  hostname: string;
  /** Raw, e.g. IDLE, MIXED, DOWN+NOT_RESPONDING, IDLE+DRAIN, ALLOCATED*. */
  state: string;
  /** False when the node cannot run work: down, not responding, failed, drained, powered down, unknown. */
  alive: boolean;
  cpus: number;
  allocCpus: number;
  realMemoryMb: number;
  allocMemMb: number;
  /** GRES counts by name, types summed: `gpu:a100:2(S:0),gpu:v100:1` is `{ gpu: 3 }`. */
  gres: Record<string, number>;
  partitions: string[];
  reason: string | null;
}

export interface SlurmJob {
  /** The numeric job id, as text (Slurm ids outgrow nothing, but they are opaque to Berth). */
  jobId: string;
  name: string;
  /** Raw: PENDING RUNNING COMPLETED FAILED CANCELLED TIMEOUT NODE_FAIL OUT_OF_MEMORY PREEMPTED BOOT_FAIL ... */
  state: string;
  /** Why the job waits or ended (Resources, Priority, NodeDown, NonZeroExitCode...); null for None. */
  reason: string | null;
  /** The batch script's exit status (0 while the job runs); null when Slurm did not say. */
  exitCode: number | null;
  /** The signal that ended the batch script; null when none. */
  signal: number | null;
  /** Hostlist expression of the allocated nodes, e.g. node[1-2]; null before allocation. */
  nodeList: string | null;
  /** The node that runs the batch script. */
  batchHost: string | null;
  comment: string | null;
}

export interface SlurmPartition {
  name: string;
  isDefault: boolean;
  /** Hostlist expression, e.g. node[1-2]. */
  nodes: string;
  /** The partition's time limit in minutes; null when unlimited. */
  maxTime: number | null;
}

const SAFE_NAME = /^[A-Za-z0-9._-]+$/;

// Free-text values and the keys that may follow them (22.05's order, with neighbours from other versions).
// (A node's OS has spaces but no `=`: the general rule reads it.)
const NODE_FREE_TEXT: Record<string, string[]> = {
  Reason: ['Comment', 'Extra', 'InstanceId', 'InstanceType', 'ResumeAfterTime'],
  Comment: ['Extra', 'Reason'],
  Extra: ['Reason', 'Comment'],
};
const JOB_TAIL = ['AdminComment', 'SystemComment', 'Comment', 'Extra', 'StdErr', 'StdIn', 'StdOut', 'Power', 'MailUser', 'MailType'];
const JOB_FREE_TEXT: Record<string, string[]> = {
  JobName: ['HetJobIdSet', 'UserId'],
  Command: ['WorkDir'],
  WorkDir: JOB_TAIL,
  AdminComment: JOB_TAIL.slice(1),
  SystemComment: JOB_TAIL.slice(2),
  Comment: JOB_TAIL.slice(3),
  Extra: JOB_TAIL.slice(4),
  StdErr: ['StdIn', 'StdOut', 'Power'],
  StdIn: ['StdOut', 'Power'],
  StdOut: ['Power', 'MailUser', 'MailType'],
};
// Keys a job's status is read from: the first three appear once, the others at most once (BatchHost comes with the
// allocation). A name or comment that contains one of them could be taken for the real field: refused (parseJob).
const JOB_KEYS_ONCE = ['JobId', 'JobName', 'JobState'];
const JOB_KEYS_AT_MOST_ONCE = ['UserId', 'Reason', 'ExitCode', 'NodeList', 'BatchHost', 'Comment'];
// Values kept verbatim (a job named ' x ' keeps its spaces), less the one space scontrol's format adds after some
// of them (`Comment=%s `).
const VERBATIM: Record<string, number> = { JobName: 0, Comment: 1, AdminComment: 1, SystemComment: 1, Extra: 1 };

const KEY = /(?<=^|\s)([A-Za-z][A-Za-z0-9_:/.]*)=/g;

/** Splits one `-o` record into its fields (first occurrence of a key wins). */
export function splitFields(record: string, freeText: Record<string, string[]> = {}): Map<string, string> {
  const keys = [...record.matchAll(KEY)].map((m) => ({ key: m[1], start: m.index!, valueStart: m.index! + m[0].length }));
  const fields = new Map<string, string>();
  for (let i = 0; i < keys.length; ) {
    const { key, valueStart } = keys[i];
    let next = i + 1;
    const ends = freeText[key];
    if (ends) {
      next = keys.findIndex((k, j) => j > i && ends.includes(k.key));
      if (next < 0) next = keys.length;
    }
    // Fields are separated by one space (the newline and indentation of the multi-line form, joined by -o).
    const end = next < keys.length ? keys[next].start - 1 : record.length;
    const raw = record.slice(valueStart, Math.max(valueStart, end));
    if (!fields.has(key)) fields.set(key, key in VERBATIM ? dropTrailingSpaces(raw, VERBATIM[key]) : raw.trim());
    i = next;
  }
  return fields;
}

function dropTrailingSpaces(value: string, count: number): string {
  let v = value;
  for (let i = 0; i < count && v.endsWith(' '); i++) v = v.slice(0, -1);
  return v;
}

/** `scontrol show node -o`: one node per line. */
export function parseNodes(text: string): { nodes: SlurmNode[]; errors: string[] } {
  const nodes: SlurmNode[] = [];
  const errors: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const result = parseNode(line);
    if (typeof result === 'string') errors.push(`${result}: ${line}`);
    else nodes.push(result);
  }
  return { nodes, errors };
}

function parseNode(line: string): SlurmNode | string {
  const f = splitFields(line, NODE_FREE_TEXT);
  const name = f.get('NodeName');
  if (!name) return 'no NodeName';
  if (!SAFE_NAME.test(name)) return `node name with unexpected characters`;
  const addr = f.get('NodeAddr') || f.get('NodeHostName') || name;
  if (!SAFE_NAME.test(addr)) return `node ${name}: address with unexpected characters`;
  const state = f.get('State');
  if (!state) return `node ${name}: no State`;
  const numbers: Record<string, number> = {};
  for (const [key, required] of [['CPUTot', true], ['CPUAlloc', false], ['RealMemory', true], ['AllocMem', false]] as const) {
    const value = f.get(key);
    if (value === undefined && !required) numbers[key] = 0;
    else if (value === undefined || !/^\d+$/.test(value)) return `node ${name}: ${key} is ${value === undefined ? 'missing' : 'not a number'}`;
    else numbers[key] = Number(value);
  }
  const gres = parseGres(f.get('Gres') ?? '');
  if (gres === null) return `node ${name}: unreadable Gres`;
  const reason = f.get('Reason');
  return {
    name,
    addr,
    hostname: f.get('NodeHostName') || name,
    state,
    alive: nodeAlive(state),
    cpus: numbers.CPUTot,
    allocCpus: numbers.CPUAlloc,
    realMemoryMb: numbers.RealMemory,
    allocMemMb: numbers.AllocMem,
    gres,
    partitions: (f.get('Partitions') ?? '').split(',').filter(Boolean),
    reason: reason && reason !== '(null)' ? reason : null,
  };
}

const NOT_ALIVE = new Set([
  'DOWN', 'NOT_RESPONDING', 'NO_RESPOND', 'FAIL', 'FAILING', 'DRAIN', 'DRAINED', 'DRAINING', 'POWERED_DOWN', 'POWER_DOWN',
  'POWERING_DOWN', 'UNKNOWN', 'FUTURE', 'ERROR', 'INVALID_REG', 'INVAL', 'REBOOT_ISSUED',
]);

/** A node runs work unless one of its state words says otherwise; `*` (not responding) and `~` (powered off) too. */
export function nodeAlive(state: string): boolean {
  const s = state.trim().toUpperCase();
  if (!s || /[*~]$/.test(s)) return false;
  return !s.replace(/[^A-Z_+]/g, '').split('+').some((word) => NOT_ALIVE.has(word));
}

const GRES_TYPE = /^[A-Za-z0-9_.-]+$/;

/** `gpu:2`, `gpu:a100:2(S:0-1),mps:200`, `(null)` → counts by GRES name; null when unreadable. */
export function parseGres(value: string): Record<string, number> | null {
  const gres: Record<string, number> = {};
  const v = value.trim();
  if (!v || v === '(null)') return gres;
  // Commas inside parentheses (socket lists) do not separate entries.
  for (const entry of v.split(/,(?![^(]*\))/)) {
    const spec = entry.replace(/\([^)]*\)$/, '');
    const parts = spec.split(':');
    const name = parts[0];
    if (!/^[A-Za-z][A-Za-z0-9_.-]*$/.test(name)) return null;
    if (parts.length > 3 || (parts.length === 3 && !GRES_TYPE.test(parts[1]))) return null;
    // `gpu` and `gpu:a100` (a type with no count) mean one.
    const last = parts[parts.length - 1];
    const count = parts.length === 1 ? 1 : parts.length === 3 ? parseCount(last) : (parseCount(last) ?? (GRES_TYPE.test(last) ? 1 : null));
    if (count === null) return null;
    gres[name] = (gres[name] ?? 0) + count;
  }
  return gres;
}

function parseCount(text: string): number | null {
  const m = /^(\d+)([KMGkmg]?)$/.exec(text);
  if (!m) return null;
  const scale = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2].toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(m[1]) * scale;
}

/**
 * `scontrol show job -o ID`: the whole text is one job (newlines inside a name or comment stay in it). Null when it
 * is not a job record, or when a user-chosen value (name, comment, command line) contains one of the keys the
 * status is read from (` JobState=`...), since such a record cannot be told from a forged one.
 */
export function parseJob(text: string): SlurmJob | null {
  const record = text.replace(/\n+$/, '');
  if (!/^JobId=\d+ /.test(record)) return null;
  const count = (key: string) => (record.match(new RegExp(`(?<=^|\\s)${key}=`, 'g')) ?? []).length;
  if (JOB_KEYS_ONCE.some((key) => count(key) !== 1) || JOB_KEYS_AT_MOST_ONCE.some((key) => count(key) > 1)) return null;
  const f = splitFields(record, JOB_FREE_TEXT);
  const state = f.get('JobState');
  if (!state || !/^[A-Z_]+$/.test(state)) return null;
  const exit = /^(\d+):(\d+)$/.exec(f.get('ExitCode') ?? '');
  const reason = f.get('Reason');
  return {
    jobId: f.get('JobId')!,
    name: f.get('JobName') ?? '',
    state,
    reason: reason && reason !== 'None' ? reason : null,
    exitCode: exit ? Number(exit[1]) : null,
    signal: exit && exit[2] !== '0' ? Number(exit[2]) : null,
    nodeList: nullIfEmpty(f.get('NodeList')),
    batchHost: nullIfEmpty(f.get('BatchHost')),
    comment: nullIfEmpty(f.get('Comment')),
  };
}

/**
 * `scontrol show job -o` for several jobs: a record starts at each line that starts with `JobId=<n> `. (A name with
 * a newline followed by such text would split a record: read jobs one id at a time where names are not trusted.)
 */
export function parseJobs(text: string): { jobs: SlurmJob[]; errors: string[] } {
  const records = text.split(/\n(?=JobId=\d+ )/).filter((r) => r.trim());
  const jobs: SlurmJob[] = [];
  const errors: string[] = [];
  for (const record of records) {
    const job = parseJob(record);
    if (job) jobs.push(job);
    else errors.push(`unreadable job record: ${record}`);
  }
  return { jobs, errors };
}

/**
 * `squeue --json` (Slurm 22.05 and later): unambiguous whatever names and comments hold. 22.05 ignores squeue's
 * filters with --json, so every job of the cluster is in it.
 */
export function parseSqueueJson(text: string): { jobs: SlurmJob[]; errors: string[] } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { jobs: [], errors: ['squeue --json: not JSON'] };
  }
  const list = (doc as { jobs?: unknown })?.jobs;
  if (!Array.isArray(list)) return { jobs: [], errors: ['squeue --json: no jobs array'] };
  const jobs: SlurmJob[] = [];
  const errors: string[] = [];
  for (const item of list as Record<string, unknown>[]) {
    const id = item?.job_id;
    // 22.05: job_state is a string; later versions give a list of words.
    const state = Array.isArray(item?.job_state) ? item.job_state[0] : item?.job_state;
    if (typeof id !== 'number' || !Number.isInteger(id) || typeof state !== 'string' || !/^[A-Z_]+$/.test(state)) {
      errors.push(`unreadable job: ${JSON.stringify(item).slice(0, 500)}`);
      continue;
    }
    const { exitCode, signal } = jsonExit(item.exit_code);
    const reason = typeof item.state_reason === 'string' && item.state_reason !== 'None' ? item.state_reason : null;
    jobs.push({
      jobId: String(id),
      name: typeof item.name === 'string' ? item.name : '',
      state,
      reason,
      exitCode,
      signal,
      nodeList: typeof item.nodes === 'string' ? nullIfEmpty(item.nodes) : null,
      batchHost: typeof item.batch_host === 'string' ? nullIfEmpty(item.batch_host) : null,
      comment: typeof item.comment === 'string' ? nullIfEmpty(item.comment) : null,
    });
  }
  return { jobs, errors };
}

// 22.05 gives the raw wait status (exit code << 8 | signal); 23.02 and later an object whose numbers are
// `{ set, number }` records.
function jsonExit(value: unknown): { exitCode: number | null; signal: number | null } {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) {
    const signal = value & 0x7f;
    return { exitCode: (value >> 8) & 0xff, signal: signal || null };
  }
  if (value && typeof value === 'object') {
    const v = value as { return_code?: unknown; signal?: { id?: unknown; signal_id?: unknown } };
    const signal = jsonNumber(v.signal?.id ?? v.signal?.signal_id);
    return { exitCode: jsonNumber(v.return_code), signal: signal && signal > 0 ? signal : null };
  }
  return { exitCode: null, signal: null };
}

function jsonNumber(value: unknown): number | null {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  const record = value as { set?: unknown; number?: unknown } | null;
  if (record && typeof record === 'object' && record.set !== false && typeof record.number === 'number') return record.number;
  return null;
}

/** `scontrol show partition -o`: one partition per line; unreadable lines are left out. */
export function parsePartitions(text: string): SlurmPartition[] {
  const partitions: SlurmPartition[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const f = splitFields(line);
    const name = f.get('PartitionName');
    if (!name || !SAFE_NAME.test(name)) continue;
    const maxTime = parseDurationMinutes(f.get('MaxTime') ?? 'UNLIMITED');
    if (maxTime === undefined) continue;
    partitions.push({ name, isDefault: f.get('Default') === 'YES', nodes: f.get('Nodes') ?? '', maxTime });
  }
  return partitions;
}

/**
 * A Slurm duration (`UNLIMITED`, `30`, `30:00`, `1:00:00`, `2-12`, `2-12:30`, `2-12:30:00`) in whole minutes, rounded
 * up; null when unlimited, undefined when unreadable.
 */
export function parseDurationMinutes(text: string): number | null | undefined {
  const t = text.trim();
  if (/^(UNLIMITED|INFINITE|NONE)$/i.test(t)) return null;
  const m = /^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$/.exec(t);
  if (!m) return undefined;
  const [, d, a, b, c] = m;
  let seconds: number;
  if (d !== undefined) seconds = Number(d) * 86400 + Number(a) * 3600 + Number(b ?? 0) * 60 + Number(c ?? 0);
  else if (c !== undefined) seconds = Number(a) * 3600 + Number(b) * 60 + Number(c);
  else if (b !== undefined) seconds = Number(a) * 60 + Number(b);
  else seconds = Number(a) * 60;
  return Math.ceil(seconds / 60);
}

function nullIfEmpty(value: string | undefined): string | null {
  return value && value !== '(null)' ? value : null;
}
