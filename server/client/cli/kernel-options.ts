/** The options `session create` and `service create` share: what each kernel gets. */

/** parseArgs options for --cpu, --mem and --env KEY=VALUE (repeatable). */
export const KERNEL_OPTIONS = {
  cpu: { type: 'string' },
  mem: { type: 'string' },
  env: { type: 'string', multiple: true },
} as const;

/** The config's resources and environ from those options. */
export function kernelConfig(values: { cpu?: string; mem?: string; env?: string[] }): { resources: Record<string, string>; environ: Record<string, string> } {
  const resources: Record<string, string> = {};
  if (values.cpu) resources.cpu = values.cpu;
  if (values.mem) resources.mem = values.mem;
  const environ = Object.fromEntries((values.env ?? []).map((pair) => [pair.split('=')[0], pair.split('=').slice(1).join('=')]));
  return { resources, environ };
}
