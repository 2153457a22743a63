/**
 * `GET|POST /manager/announcement` (CONTRACT §15). An announcement only exists while enabled: disabling it
 * drops the message, so a later read answers `{enabled: false, message: ""}`.
 */
import type { App } from '../app';
import { badRequest } from '../http/problem';
import type { Announcement } from './state';

export function readAnnouncement(app: App): Promise<Announcement> {
  return app.manager.announcement();
}

export async function updateAnnouncement(app: App, input: { enabled: boolean; message?: string | null }): Promise<Record<string, never>> {
  const message = input.message ?? '';
  if (input.enabled && message.trim() === '') {
    throw badRequest('An announcement cannot be enabled with an empty message.', { message: 'required when enabled' });
  }
  await app.manager.setAnnouncement(input.enabled ? { enabled: true, message } : { enabled: false, message: '' });
  return {};
}
