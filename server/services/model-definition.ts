/**
 * The model definition in a service's model folder (Backend.AI's format): `model-definition.yaml` (or `.yml`,
 * `.json`) at the folder root, or the file named by `config.model_definition_path`. Berth reads the first model:
 *
 * ```yaml
 * models:
 *   - name: echo
 *     service:
 *       start_command: ["python3", "/home/work/model/server.py"]   # or one shell string
 *       health_check: {path: /health, max_retries: 10, max_wait_time: 5, expected_status_code: 200}
 * ```
 *
 * Sessions share the host's network, so the server listens on the port Berth hands it: `$PORT` (also
 * `$BERTH_SERVICE_PORT`), and `{port}` in the start command is replaced by it. A `port` in the file is ignored.
 * The file is read through the host-path module (server/host-path/folder.ts), like every other folder file.
 */
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { App } from '../app';
import type { VFolder } from '../db/schema';
import { Problem, badRequest } from '../http/problem';
import { openFolderFile } from '../host-path/folder';
import { folderRootPath } from '../storage/usage';

export const DEFAULT_DEFINITION_FILES = ['model-definition.yaml', 'model-definition.yml', 'model-definition.json'];
const MAX_DEFINITION_BYTES = 256 * 1024;

export interface HealthCheck {
  path: string;
  maxRetries: number;
  maxWaitTime: number;
  expectedStatusCode: number;
  /** Seconds a new route may take to answer its first check. */
  initialDelay: number;
  /** Seconds between checks of a running route. */
  interval: number;
}

export interface ModelDefinition {
  startCommand: string[] | string | null;
  healthCheck: HealthCheck | null;
}

const healthSchema = z.object({
  path: z.string().min(1).startsWith('/'),
  max_retries: z.number().int().min(1).max(1000).default(10),
  max_wait_time: z.number().positive().max(3600).default(5),
  expected_status_code: z.number().int().min(100).max(599).default(200),
  initial_delay: z.number().min(0).max(86400).default(60),
  interval: z.number().positive().max(3600).default(10),
});

const definitionSchema = z.object({
  models: z
    .array(
      z.object({
        name: z.string().optional(),
        service: z
          .object({
            start_command: z.union([z.string().min(1), z.array(z.string()).min(1)]).optional(),
            health_check: healthSchema.nullish(),
          })
          .optional(),
      }),
    )
    .min(1),
});

/** The definition, or null when the folder has none. A malformed file is a 400 naming what is wrong. */
export async function readModelDefinition(app: App, folder: Pick<VFolder, 'id' | 'host' | 'status' | 'unmanaged_path'>, definitionPath: string | null): Promise<ModelDefinition | null> {
  const candidates = definitionPath ? [definitionPath] : DEFAULT_DEFINITION_FILES;
  for (const candidate of candidates) {
    const text = await readFolderFile(app, folder, candidate, 'model_definition_path');
    if (text === null) continue;
    return parseDefinition(text, candidate);
  }
  if (definitionPath) throw badRequest(`The model folder has no file ${definitionPath}.`, { model_definition_path: 'no such file' });
  return null;
}

export function parseDefinition(text: string, name: string): ModelDefinition {
  let raw: unknown;
  try {
    raw = name.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw badRequest(`The model definition ${name} is not valid ${name.endsWith('.json') ? 'JSON' : 'YAML'}: ${err instanceof Error ? err.message : String(err)}`, { model_definition: 'unparsable' });
  }
  const parsed = definitionSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badRequest(`The model definition ${name} is invalid at ${issue.path.join('.') || '(root)'}: ${issue.message}`, { model_definition: issue.message });
  }
  const service = parsed.data.models[0].service;
  const health = service?.health_check;
  return {
    startCommand: service?.start_command ?? null,
    healthCheck: health
      ? { path: health.path, maxRetries: health.max_retries, maxWaitTime: health.max_wait_time, expectedStatusCode: health.expected_status_code, initialDelay: health.initial_delay, interval: health.interval }
      : null,
  };
}

/** A small file of the folder as text, or null when it does not exist. */
async function readFolderFile(app: App, folder: Pick<VFolder, 'id' | 'host' | 'status' | 'unmanaged_path'>, relative: string, field: string): Promise<string | null> {
  const handle = await openFolderFile(folderRootPath(app, folder), relative, field, (stat) => {
    if (!stat.isFile()) throw badRequest(`${relative} in the model folder is not a file.`, { [field]: 'not a file' });
    if (stat.size > MAX_DEFINITION_BYTES) throw badRequest(`${relative} is larger than ${MAX_DEFINITION_BYTES} bytes.`, { [field]: 'too large' });
  }).catch((err: unknown) => {
    if (err instanceof Problem && err.slug === 'object-not-found') return null;
    throw err;
  });
  if (!handle) return null;
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
