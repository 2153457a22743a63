/**
 * `GET|PUT /manager/status` (CONTRACT §15). Berth runs its manager as one process, so `nodes` holds exactly one
 * entry: this process.
 */
import os from 'node:os';
import type { App } from '../app';
import { API_VERSION, BERTH_VERSION } from '../version';
import type { ManagerStatus } from './state';
import { countActiveSessions, terminateAllSessions } from './sessions';

/** Seconds without a heartbeat before an agent is LOST (CONTRACT §17). */
export const HEARTBEAT_TIMEOUT_S = 40;

const [, API_MAJOR, API_DATE] = /^v(\d+)\.(\d{8})$/.exec(API_VERSION)!;

export async function managerStatus(app: App, serviceAddr: string) {
  const activeSessions = await countActiveSessions(app);
  const status = app.manager.status;
  return {
    nodes: [
      {
        id: os.hostname(),
        num_proc: 1,
        service_addr: serviceAddr,
        heartbeat_timeout: HEARTBEAT_TIMEOUT_S,
        ssl_enabled: false,
        active_sessions: activeSessions,
        status,
        version: BERTH_VERSION,
        api_version: [Number(API_MAJOR), API_DATE],
      },
    ],
    status,
    active_sessions: activeSessions,
  };
}

/** Freezing with `force_kill` terminates every session first, so nothing keeps running behind the freeze. */
export async function setManagerStatus(app: App, input: { status: ManagerStatus; force_kill: boolean }): Promise<Record<string, never>> {
  if (input.force_kill && input.status === 'frozen') {
    const terminated = await terminateAllSessions(app);
    app.log.info({ terminated }, 'force-killed sessions before freezing');
  }
  await app.manager.setStatus(input.status);
  app.log.info({ status: input.status }, 'manager status changed');
  return {};
}
