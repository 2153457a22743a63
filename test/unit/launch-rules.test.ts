import { describe, expect, it } from 'vitest';
import { clusterSizeProblem, customResourceProblems, envProblems, finite, GiB, imageApps, imageMinimum } from '../../components/sessions/launcher/launchRules';
import type { ImageChoice } from '../../components/sessions/useLauncher';

const image: ImageChoice = {
  id: 'i1',
  name: 'python:3.12',
  tag: '3.12',
  runtime: 'python',
  aliases: [],
  is_customized: false,
  resource_limits: [
    { key: 'cpu', min: '1', max: null },
    { key: 'mem', min: String(2 * GiB), max: null },
  ],
  service_ports: '[{"name":"jupyter","protocol":"http","ports":[8888]}]',
};
const unlimited = { cpu: null, mem: null };

describe('launcher checks', () => {
  it('reads the image minimums and apps, and survives bad service ports', () => {
    expect(imageMinimum(image, 'cpu')).toBe(1);
    expect(imageMinimum(image, 'cuda.device')).toBe(0);
    expect(imageMinimum(undefined, 'cpu')).toBe(0);
    expect(imageApps(image)).toEqual(['jupyter']);
    expect(imageApps({ ...image, service_ports: 'not json' })).toEqual([]);
  });

  it('treats an unlimited or unknown remainder as no limit', () => {
    expect(finite(undefined)).toBeNull();
    expect(finite('Infinity')).toBeNull();
    expect(finite('4')).toBe(4);
  });

  it('accepts a cluster size from 1 to 64 only', () => {
    expect(clusterSizeProblem(1)).toBeNull();
    expect(clusterSizeProblem(64)).toBeNull();
    for (const bad of [0, 65, 1.5, Number.NaN]) expect(clusterSizeProblem(bad)).toBe('Use a whole number from 1 to 64.');
  });

  it('refuses custom amounts at or below 0 and under the image minimum', () => {
    expect(customResourceProblems(image, 0, 0, unlimited, 1)).toEqual({ cpu: 'Enter a number of CPU cores above 0.', mem: 'Enter an amount of memory above 0.' });
    expect(customResourceProblems(image, 0.5, GiB, unlimited, 1)).toEqual({ cpu: 'This image needs at least 1 CPU.', mem: 'This image needs at least 2.0 GiB.' });
    expect(customResourceProblems(image, 2, 4 * GiB, unlimited, 1)).toEqual({ cpu: null, mem: null });
  });

  it('counts what is left across every container of a cluster', () => {
    const left = { cpu: 4, mem: 8 * GiB };
    expect(customResourceProblems(image, 2, 4 * GiB, left, 2)).toEqual({ cpu: null, mem: null });
    expect(customResourceProblems(image, 2, 4 * GiB, left, 3)).toEqual({
      cpu: 'Only 4 CPU left for you across 3 containers.',
      mem: 'Only 8.0 GiB of memory left for you across 3 containers.',
    });
    expect(customResourceProblems(image, 5, 2 * GiB, left, 1).cpu).toBe('Only 4 CPU left for you.');
  });

  it('names bad and repeated environment variables, and lets empty rows be', () => {
    const rows = [
      { id: 1, key: 'PATH_EXTRA', value: 'a' },
      { id: 2, key: '1BAD', value: 'b' },
      { id: 3, key: 'PATH_EXTRA', value: 'c' },
      { id: 4, key: '', value: '' },
      { id: 5, key: '', value: '' },
    ];
    expect(envProblems(rows)).toEqual(['Already set above.', 'Letters, digits and _, not starting with a digit.', 'Already set above.', null, null]);
  });
});
