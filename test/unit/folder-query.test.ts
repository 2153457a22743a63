// The folder queries keep the code's own constants (statuses, ownership kinds, the superadmin role) in their SQL text
// and bind only what a request brings (server/db/literal.ts): PGlite runs each SQL text as a named statement whose
// generic plan is planned without the bound values, and with the constants bound the folder list's generic plan
// joined every folder by nested loops.
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { App } from '../../server/app';
import type { Database } from '../../server/db/schema';
import { literal } from '../../server/db/literal';
import { folderQuery, notGone, reachableBy, type Viewer } from '../../server/storage/access';

const db = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
const app = { db } as unknown as App;
const USER_ID = '0b7e6a52-4f0e-4d8e-9a3e-3f3c8f7d2a11';

const viewers: Record<string, Viewer> = {
  user: { userId: USER_ID, domainName: 'default', role: 'user', isAdmin: false },
  'domain admin': { userId: USER_ID, domainName: 'lab', role: 'admin', isAdmin: true },
  superadmin: { userId: USER_ID, domainName: 'default', role: 'superadmin', isAdmin: true },
};

describe('folder queries', () => {
  for (const [who, viewer] of Object.entries(viewers)) {
    it(`bind only the viewer's own values for a ${who}`, () => {
      const { sql, parameters } = notGone(reachableBy(folderQuery(app, viewer.userId), viewer)).compile();
      expect(new Set(parameters)).toEqual(new Set(viewer.role === 'admin' ? [USER_ID, viewer.domainName] : [USER_ID]));
      expect(sql).toContain(`"v"."status" not in ('delete-ongoing', 'delete-complete')`);
      expect(sql).toContain(`"v"."ownership_type" = 'user'`);
      if (viewer.role === 'admin') expect(sql).toContain(`<> 'superadmin'`);
    });
  }

  it('write a constant with a quote in it as one SQL string', () => {
    const { sql, parameters } = db.selectFrom('users').select('uuid').where('email', '=', literal("o'brien")).compile();
    expect(sql).toBe(`select "uuid" from "users" where "email" = 'o''brien'`);
    expect(parameters).toEqual([]);
  });
});
