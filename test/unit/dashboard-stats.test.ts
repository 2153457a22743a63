import { describe, expect, it } from 'vitest';
import { csvCell, formatBytesLocale, statPoints, usageCsv, usageRows, type ProjectUsage, type StatBin } from '../../components/statistics/stats';

function bin(date: number, sessions: number, mem = 0): StatBin {
  const count = (value: number) => ({ value, unit_hint: 'count' as const });
  const bytes = (value: number) => ({ value, unit_hint: 'bytes' as const });
  return {
    date,
    num_sessions: count(sessions),
    cpu_allocated: count(sessions),
    mem_allocated: bytes(mem),
    gpu_allocated: count(0),
    io_read_bytes: bytes(0),
    io_write_bytes: bytes(0),
    disk_used: bytes(0),
  };
}

const MONTH = Array.from({ length: 2880 }, (_, i) => bin(1_700_000_000 + i * 900, i % 7));

describe('statistics points', () => {
  it('keeps the last day at full resolution, ending at the newest bin', () => {
    const points = statPoints(MONTH, 'day');
    expect(points).toHaveLength(96);
    expect(points.at(-1)!.date.getTime()).toBe(MONTH.at(-1)!.date * 1000);
    expect(points.map((p) => p.values.num_sessions)).toEqual(MONTH.slice(-96).map((b) => b.num_sessions.value));
  });

  it('merges a week into hours and a month into 4-hour points, keeping each group\'s peak', () => {
    const week = statPoints(MONTH, 'week');
    expect(week).toHaveLength(168);
    expect(week[0].values.num_sessions).toBe(Math.max(...MONTH.slice(-672, -668).map((b) => b.num_sessions.value)));
    const month = statPoints(MONTH, 'month');
    expect(month).toHaveLength(180);
    expect(month[0].date.getTime()).toBe(MONTH[0].date * 1000);
    expect(month.every((p) => p.values.num_sessions === 6)).toBe(true);
  });

  it('draws nothing for no bins', () => {
    expect(statPoints([], 'month')).toEqual([]);
  });
});

describe('bytes in binary units', () => {
  it('uses KiB, MiB and GiB with the locale\'s digits', () => {
    expect(formatBytesLocale(512, 'en')).toBe('512 B');
    expect(formatBytesLocale(1536, 'en')).toBe('1.5 KiB');
    expect(formatBytesLocale(5 * 1024 ** 2, 'en')).toBe('5 MiB');
    expect(formatBytesLocale(1.5 * 1024 ** 3, 'de')).toBe('1,5 GiB');
  });
});

describe('usage CSV', () => {
  it('neutralises cells that a spreadsheet would run as formulas', () => {
    expect(csvCell('=HYPERLINK("http://evil","x")')).toBe(`"'=HYPERLINK(""http://evil"",""x"")"`);
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tcmd')).toBe("'\tcmd");
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    // Numbers are figures, not text: a negative one stays a number.
    expect(csvCell(-5)).toBe('-5');
  });

  it('writes one row per project under a header', () => {
    const block: ProjectUsage = {
      domain_name: 'default',
      g_id: 'x',
      g_name: '=cmd|calc',
      g_cpu_allocated: 2,
      g_mem_allocated: 1024,
      g_gpu_allocated: 0,
      g_io_read: 10,
      g_io_write: 20,
      g_disk_used: 30,
      c_infos: [{}, {}],
    };
    const csv = usageCsv(usageRows([block]));
    expect(csv.split('\r\n')).toEqual([
      'Project,Domain,Containers,CPU allocated,Memory allocated (bytes),GPU allocated,I/O read (bytes),I/O written (bytes),Disk used (bytes)',
      "'=cmd|calc,default,2,2,1024,0,10,20,30",
      '',
    ]);
  });
});
