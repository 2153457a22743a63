/** BERTH_ROLES (server/cluster/roles): the default, the listener-only lists of before issue 15, typos refused. */
import { describe, expect, it } from 'vitest';
import { parseRoles, ROLES } from '../../server/cluster/roles';

describe('BERTH_ROLES', () => {
  it('runs every role when unset or empty', () => {
    expect(parseRoles(undefined)).toEqual([...ROLES]);
    expect(parseRoles(' ')).toEqual([...ROLES]);
  });

  it('keeps the agent and the singletons in a list naming listeners only, as before they were roles', () => {
    expect(parseRoles('manager,apps')).toEqual(['manager', 'apps', 'agent', 'scheduler']);
  });

  it('is exact once it names agent or scheduler', () => {
    expect(parseRoles('agent,scheduler')).toEqual(['agent', 'scheduler']);
    expect(parseRoles('manager, web ,scheduler,manager')).toEqual(['manager', 'web', 'scheduler']);
  });

  it('refuses an unknown role rather than silently running less', () => {
    expect(() => parseRoles('manager,schedular')).toThrow(/unknown role "schedular"/);
  });
});
