/**
 * The quota hold of an upload session (CONTRACT §9.6 quota scopes, applied to §9.4 uploads).
 *
 * The bytes an upload has received sit in the volume's `.uploads/` directory, outside every folder, where no
 * measurement of the scope sees them; so the hold covers the session's whole size, not only what is still to come.
 * It is taken (a full check: 412 quota-exceeded before any byte is accepted) by the first PATCH of the session, and
 * kept while PATCHes keep coming: later chunks reuse it instead of measuring the scope again. It ends when the upload
 * completes or fails, or once the session has been idle for HOLD_IDLE_MS; the next PATCH then checks afresh.
 */
import type { App } from '../../app';
import type { VFolder } from '../../db/schema';
import { reserveQuota } from '../quota';

export const HOLD_IDLE_MS = 30_000;

interface Hold {
  ready: Promise<() => void>;
  active: number;
  timer: NodeJS.Timeout | null;
}

const holdsByApp = new WeakMap<App, Map<string, Hold>>();

function holdsOf(app: App): Map<string, Hold> {
  let map = holdsByApp.get(app);
  if (!map) holdsByApp.set(app, (map = new Map()));
  return map;
}

/** Holds the session's quota for one PATCH; call the answer when that PATCH has ended. */
export async function holdUploadQuota(app: App, folder: Pick<VFolder, 'quota_scope_id'>, session: string, size: number): Promise<() => void> {
  const holds = holdsOf(app);
  let hold = holds.get(session);
  if (!hold) {
    hold = { ready: reserveQuota(app, folder, size), active: 0, timer: null };
    holds.set(session, hold);
    const created = hold;
    created.ready.catch(() => holds.get(session) === created && holds.delete(session));
  }
  if (hold.timer) clearTimeout(hold.timer);
  hold.timer = null;
  hold.active += 1;
  try {
    await hold.ready;
  } catch (err) {
    hold.active -= 1;
    throw err;
  }
  const held = hold;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    held.active -= 1;
    if (held.active > 0 || holds.get(session) !== held) return;
    held.timer = setTimeout(() => void endUploadQuota(app, session), HOLD_IDLE_MS);
    held.timer.unref();
  };
}

/** Ends the session's hold (the upload completed, failed or went idle): its bytes are measured from now on, or gone. */
export async function endUploadQuota(app: App, session: string): Promise<void> {
  const holds = holdsOf(app);
  const hold = holds.get(session);
  if (!hold) return;
  holds.delete(session);
  if (hold.timer) clearTimeout(hold.timer);
  const release = await hold.ready.catch(() => null);
  release?.();
}

/** Sessions holding quota now (for tests). */
export function heldUploadSessions(app: App): string[] {
  return [...holdsOf(app).keys()];
}
