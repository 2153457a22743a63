/** A command's actions as data: the first word picks one, the rest are its arguments. */
import { UsageError } from './credentials';

export type Action = (args: string[]) => Promise<unknown> | unknown;

/** Runs the action `args[0]` names among `actions`; a usage error ("unknown <what>: <word>") for any other word. */
export async function dispatch(what: string, actions: Record<string, Action>, args: string[]): Promise<unknown> {
  const [action, ...rest] = args;
  const run = action !== undefined && Object.hasOwn(actions, action) ? actions[action] : undefined;
  if (!run) throw new UsageError(`unknown ${what}: ${action ?? ''}`);
  return run(rest);
}
