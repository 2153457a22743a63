/**
 * The manager's own status (running | frozen) and announcement, kept in the configuration store under
 * `manager/` and mirrored in memory so the request path can check it without a query.
 */
import type { ConfigStore } from '../config/store';

export type ManagerStatus = 'running' | 'frozen';

export interface Announcement {
  enabled: boolean;
  message: string;
}

const STATUS_KEY = 'manager/status';
const ANNOUNCEMENT_KEY = 'manager/announcement';

export class ManagerState {
  status: ManagerStatus = 'running';
  readonly startedAt = new Date();

  constructor(private readonly store: ConfigStore) {
    // Another replica froze or thawed the manager (or a raw config write touched the key): follow at once.
    store.onChange((key) => {
      if (STATUS_KEY.startsWith(key)) void this.load().catch(() => undefined);
    });
  }

  async load(): Promise<void> {
    const status = await this.store.get(STATUS_KEY);
    this.status = status === 'frozen' ? 'frozen' : 'running';
  }

  async setStatus(status: ManagerStatus): Promise<void> {
    await this.store.set(STATUS_KEY, status);
    this.status = status;
  }

  get frozen(): boolean {
    return this.status === 'frozen';
  }

  async announcement(): Promise<Announcement> {
    const raw = await this.store.get(ANNOUNCEMENT_KEY);
    if (!raw) return { enabled: false, message: '' };
    try {
      const parsed = JSON.parse(raw) as Announcement;
      return { enabled: Boolean(parsed.enabled), message: String(parsed.message ?? '') };
    } catch {
      return { enabled: false, message: '' };
    }
  }

  async setAnnouncement(value: Announcement): Promise<void> {
    await this.store.set(ANNOUNCEMENT_KEY, JSON.stringify(value));
  }
}
