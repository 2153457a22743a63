/** One Executions registry per running manager. */
import type { App } from '../app';
import { Executions } from './execute';

const registries = new WeakMap<App, Executions>();

export function executionsOf(app: App): Executions {
  let registry = registries.get(app);
  if (!registry) registries.set(app, (registry = new Executions(app)));
  return registry;
}
