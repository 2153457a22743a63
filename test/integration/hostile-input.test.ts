/**
 * Input that once made the manager answer 500, now a 400 `invalid-api-params` decided once in the request pipeline
 * (server/http/control-characters.ts): NUL anywhere, other control characters in names, ids, keys and paths,
 * while free text a user wrote (dotfiles, scripts, code, templates) keeps them. Kernel ids that are not UUIDs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import type { ApiResponse } from '../../server/client/client';

let t: TestBerth;
let user: TestUser;

beforeAll(async () => {
  t = await startTestBerth();
  user = await t.createUser();
});
afterAll(() => t?.stop());

function expectInvalid(res: ApiResponse, field?: string) {
  expect(res.status, res.text).toBe(400);
  expect(res.headers['content-type']).toContain('application/problem+json');
  const problem = res.json();
  expect(problem.type).toBe('https://errors.berth.dev/invalid-api-params');
  if (field) expect(Object.keys(problem.data ?? {})).toContain(field);
}

describe('NUL bytes', () => {
  it.each([
    ['a path parameter', 'GET', '/folders/a%00b', undefined, 'name'],
    ['a query value', 'GET', '/session/_/match?id=a%00b', undefined, 'id'],
    ['a query value naming a keypair', 'GET', '/user-config/dotfiles?owner_access_key=%00', undefined, 'owner_access_key'],
    ['a path parameter of a DELETE', 'DELETE', '/session/%00', undefined, 'session_name'],
    ['a JSON string field', 'POST', '/session/_/sync-agent-registry', { agent: 'a\u0000b' }, 'agent'],
    ['a JSON object key', 'POST', '/admin/gql', { query: '{ user { email } }', variables: { 'a\u0000': 1 } }, undefined],
    ['free text (a dotfile)', 'POST', '/user-config/dotfiles', { path: '.bashrc', permission: '644', data: 'echo \u0000' }, 'data'],
    ['a nested GraphQL variable', 'POST', '/admin/gql', { query: 'query($e: String) { user(email: $e) { email } }', variables: { e: 'x\u0000' } }, 'variables.e'],
  ] as const)('in %s is refused with 400', async (_, method, path, body, field) => {
    const res = await user.client.request(method, path, body === undefined ? {} : { body });
    expectInvalid(res, field);
  });

  it('is refused in variables given as JSON text too', async () => {
    const res = await user.client.request('POST', '/admin/gql', { body: { query: '{ user { email } }', variables: JSON.stringify({ e: 'x\u0000' }) } });
    expectInvalid(res, 'variables.e');
  });

  it('an unpaired surrogate (unstorable text) is refused the same way', async () => {
    const res = await user.client.request('POST', '/folders', { rawBody: '{"name":"bad\\ud800name"}' });
    expectInvalid(res, 'name');
  });
});

describe('other control characters', () => {
  it.each([
    ['a folder name', 'POST', '/folders', { name: 'two\nlines' }, 'name'],
    ['a path in a query value', 'GET', '/user-config/dotfiles?path=.bash%0Arc', undefined, 'path'],
    ['a dotfile path', 'POST', '/user-config/dotfiles', { path: '.bash\u001brc', permission: '644', data: 'x' }, 'path'],
    ['an environment variable name', 'POST', '/session', { name: 'ctl', image: 'shell', config: { environ: {} }, tag: 'a\tb' }, 'tag'],
    ['a session name in the path', 'GET', '/session/a%7Fb', undefined, 'session_name'],
  ] as const)('in %s are refused', async (_, method, path, body, field) => {
    expectInvalid(await user.client.request(method, path, body === undefined ? {} : { body }), field);
  });

  it('are kept in free text: a dotfile and a bootstrap script keep tabs, newlines and escape sequences', async () => {
    const data = 'alias ll="ls -l"\n\tprintf "\u001b[1mbold\u001b[0m\\n"\r\n';
    expect((await user.client.request('POST', '/user-config/dotfiles', { body: { path: '.bashrc', permission: '644', data } })).status).toBe(200);
    expect((await user.client.call('GET', '/user-config/dotfiles', { query: { path: '.bashrc' } })).data).toBe(data);
    const script = '#!/bin/sh\necho "\u0007 done"\n';
    expect((await user.client.request('POST', '/user-config/bootstrap-script', { body: { script } })).status).toBe(200);
    expect(await user.client.call('GET', '/user-config/bootstrap-script')).toBe(script);
  });

  it('are kept in a multi-line GraphQL document and in the text of variables', async () => {
    const res = await user.client.request('POST', '/admin/gql', { body: { query: 'query($e: String) {\n\tuser(email: $e) {\n\t\temail\n\t}\n}', variables: { e: 'line\nbreak' } } });
    expect(res.status).toBe(200);
    expect(res.json().data).toEqual({ user: null });
  });
});

describe('GET /session/{name}/logs', () => {
  it('answers a kernel id that is not a UUID with 400', async () => {
    const created = await user.client.call('POST', '/session', { body: { name: 'logs-kernel-id', image: 'shell' } });
    try {
      expectInvalid(await user.client.request('GET', '/session/logs-kernel-id/logs', { query: { kernel_id: 'abc' } }), 'kernel_id');
      const info = await user.client.call('GET', `/session/${created.sessionId}`);
      expect(info.status).toBe('RUNNING');
      const mainKernel = await t.app.db.selectFrom('kernels').select('id').where('session_id', '=', created.sessionId).executeTakeFirstOrThrow();
      const logs = await user.client.request('GET', '/session/logs-kernel-id/logs', { query: { kernel_id: mainKernel.id } });
      expect(logs.status).toBe(200);
      expect(logs.json().result).toHaveProperty('logs');
    } finally {
      await user.client.request('DELETE', '/session/logs-kernel-id');
    }
  });
});
