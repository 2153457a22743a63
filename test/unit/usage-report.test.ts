import { describe, expect, it } from 'vitest';
import { durationText } from '../../server/resources/usage-report/containers';
import { localDayNumber, zonedMidnight } from '../../server/resources/usage-report/time-zone';

describe('usage report dates', () => {
  it('finds local midnight in the configured zone', () => {
    expect(zonedMidnight(2026, 11, 1, 'UTC').toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(zonedMidnight(2026, 11, 1, 'Asia/Seoul').toISOString()).toBe('2026-10-31T15:00:00.000Z');
    // New York: EDT (UTC-4) until 1 November 2026, EST (UTC-5) after.
    expect(zonedMidnight(2026, 11, 1, 'America/New_York').toISOString()).toBe('2026-11-01T04:00:00.000Z');
    expect(zonedMidnight(2026, 11, 2, 'America/New_York').toISOString()).toBe('2026-11-02T05:00:00.000Z');
  });

  it('rolls a day or month past the end over, as the exclusive end of a period', () => {
    expect(zonedMidnight(2026, 13, 1, 'UTC').toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(zonedMidnight(2026, 2, 29, 'UTC').toISOString()).toBe('2026-03-01T00:00:00.000Z');
  });

  it('counts calendar days on the zone clock', () => {
    const lateEvening = new Date('2026-11-22T14:30:00Z');
    expect(localDayNumber(lateEvening, 'Asia/Seoul') - localDayNumber(lateEvening, 'UTC')).toBe(0);
    expect(localDayNumber(new Date('2026-11-22T15:30:00Z'), 'Asia/Seoul') - localDayNumber(lateEvening, 'UTC')).toBe(1);
  });

  it('prints durations as Python timedelta does', () => {
    expect(durationText(0)).toBe('0:00:00');
    expect(durationText(61_500)).toBe('0:01:01.500000');
    expect(durationText(86_400_000 + 2 * 3_600_000 + 3 * 60_000 + 4_123.456)).toBe('1 day, 2:03:04.123456');
    expect(durationText(3 * 86_400_000)).toBe('3 days, 0:00:00');
  });
});
