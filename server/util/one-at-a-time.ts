/**
 * Running work one at a time per key: each call waits for the earlier calls of its key to end, whatever their outcome,
 * and keys are kept per owner (a manager's App), so two managers in one process never wait on each other.
 */
export type OneAtATime<O extends object> = <T>(owner: O, key: string, fn: () => Promise<T>) => Promise<T>;

export function oneAtATime<O extends object>(): OneAtATime<O> {
  const tails = new WeakMap<O, Map<string, Promise<unknown>>>();
  return (owner, key, fn) => {
    let map = tails.get(owner);
    if (!map) tails.set(owner, (map = new Map()));
    const run = (map.get(key) ?? Promise.resolve()).then(fn, fn);
    const tail = run.catch(() => undefined);
    map.set(key, tail);
    // Forget the key once its last call ends, so the map holds only keys with work in flight.
    void tail.then(() => map.get(key) === tail && map.delete(key));
    return run;
  };
}
