/**
 * The operator's time zone for usage reports (config key `system/timezone`, an IANA name; UTC when unset or
 * unknown), and local calendar dates turned into instants in it.
 */
import type { App } from '../../app';

export const TIMEZONE_KEY = 'system/timezone';

export async function reportTimeZone(app: App): Promise<string> {
  const configured = (await app.config.get(TIMEZONE_KEY))?.trim();
  if (!configured) return 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: configured });
    return configured;
  } catch {
    return 'UTC';
  }
}

/** How far the zone's wall clock is ahead of UTC at `epochMs`. */
function zoneOffsetMs(epochMs: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(epochMs));
  const field = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const wall = Date.UTC(field('year'), field('month') - 1, field('day'), field('hour'), field('minute'), field('second'));
  return wall - Math.floor(epochMs / 1000) * 1000;
}

/** The instant local midnight starts `year-month-day` in the zone (month 1–12; days past the month's end roll over). */
export function zonedMidnight(year: number, month: number, day: number, timeZone: string): Date {
  const wall = Date.UTC(year, month - 1, day);
  let instant = wall - zoneOffsetMs(wall, timeZone);
  // A second pass lands on the right side of a daylight-saving change between the guess and the answer.
  instant = wall - zoneOffsetMs(instant, timeZone);
  return new Date(instant);
}

/** The local calendar day number (days since 1970-01-01 on the zone's wall clock). */
export function localDayNumber(date: Date, timeZone: string): number {
  return Math.floor((date.getTime() + zoneOffsetMs(date.getTime(), timeZone)) / 86_400_000);
}
