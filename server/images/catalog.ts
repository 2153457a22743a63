/**
 * Images are runtime definitions: an interpreter the kernel runner drives, minimum resources and the apps
 * (service ports) it offers. The built-in ones are written on every start so they follow the host: `jupyter`
 * appears where Jupyter is installed.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { App } from '../app';
import { json } from '../db';
import type { Image, ServicePort } from '../db/schema';
import { Problem } from '../http/problem';

const MiB = 1024 * 1024;

export const JUPYTER_ARGV = [
  '/usr/bin/python3', '-m', 'notebook', '--no-browser', '--ip=127.0.0.1', '--port={port}',
  '--NotebookApp.base_url={base_url}', '--NotebookApp.token=', '--NotebookApp.password=',
  '--NotebookApp.allow_origin=*', '--notebook-dir=/home/work',
];

interface BuiltinImage {
  name: string;
  aliases: string[];
  runtime: 'python' | 'shell';
  tag: string;
  limits: Record<string, { min: string; max?: string | null }>;
  ports: ServicePort[];
}

function builtins(): BuiltinImage[] {
  const jupyter: ServicePort[] = existsSync('/usr/bin/jupyter-notebook') || existsSync('/usr/lib/python3/dist-packages/notebook')
    ? [{ name: 'jupyter', protocol: 'http', ports: [8080], argv: JUPYTER_ARGV }]
    : [];
  return [
    { name: 'berth/python:3.11', aliases: ['python', 'python:3.11', 'python3'], runtime: 'python', tag: '3.11', limits: { cpu: { min: '0.5' }, mem: { min: String(256 * MiB) } }, ports: jupyter },
    { name: 'berth/shell:5.2', aliases: ['shell', 'bash'], runtime: 'shell', tag: '5.2', limits: { cpu: { min: '0.5' }, mem: { min: String(128 * MiB) } }, ports: [] },
  ];
}

export async function seedImages(app: App): Promise<void> {
  for (const image of builtins()) {
    const existing = await app.db.selectFrom('images').select('id').where('name', '=', image.name).executeTakeFirst();
    const id = existing?.id ?? randomUUID();
    const values = { runtime: image.runtime, tag: image.tag, resource_limits: json(image.limits), service_ports: json(image.ports), labels: json({ 'ai.backend.runtime-type': image.runtime }) };
    if (existing) await app.db.updateTable('images').set(values).where('id', '=', id).execute();
    else await app.db.insertInto('images').values({ id, name: image.name, ...values }).execute();
    for (const alias of image.aliases) {
      await app.db.insertInto('image_aliases').values({ alias, image_id: id }).onConflict((oc) => oc.column('alias').doNothing()).execute();
    }
  }
}

/** An image by canonical name, alias or id. */
export async function resolveImage(app: App, reference: string): Promise<Image> {
  const byAlias = await app.db
    .selectFrom('image_aliases')
    .innerJoin('images', 'images.id', 'image_aliases.image_id')
    .selectAll('images')
    .where('image_aliases.alias', '=', reference)
    .where('images.is_active', '=', true)
    .executeTakeFirst();
  if (byAlias) return byAlias;
  const byName = await app.db
    .selectFrom('images')
    .selectAll()
    .where((eb) => eb.or([eb('name', '=', reference), ...(isUuid(reference) ? [eb('id', '=', reference)] : [])]))
    .where('is_active', '=', true)
    .executeTakeFirst();
  if (!byName) throw new Problem('invalid-api-params', `Unknown image: ${reference}`, { image: 'unknown image' });
  return byName;
}

function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
