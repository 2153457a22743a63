/** fieldsOf (server/db/list-query.ts): field maps written by type, and the filter language reading them. */
import { describe, expect, it } from 'vitest';
import { fieldsOf, parseFilter } from '../../server/db/list-query';

describe('fieldsOf', () => {
  it('qualifies a column by the alias, renames with field:column and keeps a joined column as written', () => {
    expect(fieldsOf('e', { uuid: ['id', 'project:group_id'], string: ['owner:u.email'], datetime: ['created_at'] })).toEqual({
      id: { column: 'e.id', type: 'uuid' },
      project: { column: 'e.group_id', type: 'uuid' },
      owner: { column: 'u.email', type: 'string' },
      created_at: { column: 'e.created_at', type: 'datetime' },
    });
  });

  it('leaves columns unqualified without an alias', () => {
    expect(fieldsOf(null, { boolean: ['schedulable', 'active:is_active'] })).toEqual({
      schedulable: { column: 'schedulable', type: 'boolean' },
      active: { column: 'is_active', type: 'boolean' },
    });
  });

  it('gives the filter exactly the fields named, by their names', () => {
    const fields = fieldsOf('e', { string: ['domain:domain_name'] });
    expect(parseFilter('domain == "default"', fields)).toEqual({ kind: 'cmp', column: 'e.domain_name', op: '=', value: 'default' });
    expect(() => parseFilter('domain_name == "default"', fields)).toThrow(/unknown field domain_name/);
  });
});
