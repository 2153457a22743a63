import { afterEach, describe, expect, it, vi } from 'vitest';

// The dashboard's formatters build their Intl objects on first use, not when their module loads: the server renders
// each page before its data arrives, and one Intl formatter reads megabytes of ICU data into Berth's process.
const { DateTimeFormat, NumberFormat, RelativeTimeFormat } = Intl;

/** Counts the formatters built, each a real one. */
function countConstructions() {
  return {
    dateTimeFormat: vi.spyOn(Intl, 'DateTimeFormat').mockImplementation(function (...args) {
      return new DateTimeFormat(...args);
    }),
    relativeTimeFormat: vi.spyOn(Intl, 'RelativeTimeFormat').mockImplementation(function (...args) {
      return new RelativeTimeFormat(...args);
    }),
  };
}

describe('dashboard formatters', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.resetModules();
  });

  it('build no Intl formatter when their module loads', async () => {
    const { dateTimeFormat, relativeTimeFormat } = countConstructions();
    await import('../../components/admin/format');
    await import('../../components/sessions/model');
    expect(dateTimeFormat).not.toHaveBeenCalled();
    expect(relativeTimeFormat).not.toHaveBeenCalled();
  });

  it('build each formatter once, on first use, and format as Intl does', async () => {
    const { dateTimeFormat, relativeTimeFormat } = countConstructions();
    const { formatDateTime } = await import('../../components/admin/format');
    const { relativeTime } = await import('../../components/sessions/model');
    const when = new Date('2026-11-29T10:30:00Z');
    const expected = new DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(when);

    expect(formatDateTime(when)).toBe(expected);
    expect(formatDateTime(when.getTime())).toBe(expected);
    expect(dateTimeFormat).toHaveBeenCalledTimes(1);

    const now = when.getTime();
    expect(relativeTime(new Date(now - 3 * 60_000).toISOString(), now)).toBe('3 minutes ago');
    expect(relativeTime(new Date(now + 2 * 86_400_000).toISOString(), now)).toBe('in 2 days');
    expect(relativeTimeFormat).toHaveBeenCalledTimes(1);
  });

  // MUI's TablePagination builds an Intl.NumberFormat as its module loads; the table pager loads it in the browser only.
  it('leave MUI\'s TablePagination unloaded outside the browser', async () => {
    const numberFormat = vi.spyOn(Intl, 'NumberFormat').mockImplementation(function (...args) {
      return new NumberFormat(...args);
    });
    await import('../../components/ui/tableParts');
    expect(numberFormat).not.toHaveBeenCalled();
    // The spy sees the module's formatter when it does load (so the line above could fail).
    await import('@mui/material/TablePagination');
    expect(numberFormat).toHaveBeenCalled();
  });
});
