/** The relay's one spelling of a path (server/web/relay-path.ts), the pipeline's control-character rule and relayed answers. */
import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { canonicalRelayPath, pathDecodes, routeToRelay } from '../../server/web/relay-path';
import { RELAY_PATH_HEADER } from '../../server/web/headers';
import { refuseControlCharacters } from '../../server/http/control-characters';
import { answerJson, SECRET_ENDING, SECRET_FIELDS } from '../../server/http/relayed';

describe('canonicalRelayPath', () => {
  it.each([
    ['/admin/%67ql', '/admin/gql'],
    ['/admin/gql', '/admin/gql'],
    ['//gql', '//gql'],
    ['/folders/with%20space/files', '/folders/with%20space/files'],
    ['/folders/%C3%BCml', '/folders/%C3%BCml'],
    ['/session/a@b', '/session/a%40b'],
    ['', '/'],
  ])('writes %s as %s', (raw, canonical) => {
    expect(canonicalRelayPath(raw)).toEqual({ path: canonical });
  });

  it.each(['/admin%2Fgql', '/admin%5Cgql', '/admin/%2567ql', '/a/%2e%2e/admin/gql', '/a/./b', '/a/%2E/b', '/a/%zz', '/a/%00', '/a/%0Ab', '/a/%E0%A4%A'])('refuses %s', (raw) => {
    expect(canonicalRelayPath(raw)).toHaveProperty('refused');
  });

  it('tells a malformed escape in the path from one in the query', () => {
    expect(pathDecodes('/api/manager/v2?q=%zz')).toBe(true);
    expect(pathDecodes('/api/manager/%zz?q=1')).toBe(false);
  });
});

describe('routeToRelay', () => {
  function routed(url: string, headers: Record<string, string> = {}): { url: string | undefined; path: unknown } {
    const req = { url, headers: { ...headers } } as unknown as IncomingMessage;
    routeToRelay(req);
    return { url: req.url, path: req.headers[RELAY_PATH_HEADER] };
  }

  it('hands /api/manager/<path>?<query> to the static route, the path aside, the query kept', () => {
    expect(routed('/api/manager/folders/with%20space/files?path=a%2Fb&x=1')).toEqual({
      url: '/api/manager?path=a%2Fb&x=1',
      path: '/folders/with%20space/files',
    });
    expect(routed('/api/manager/v2')).toEqual({ url: '/api/manager', path: '/v2' });
  });

  it('leaves the percent-encoding for canonicalRelayPath to judge', () => {
    expect(routed('/api/manager/admin/%67ql').path).toBe('/admin/%67ql');
    expect(routed('/api/manager/admin%2Fgql').path).toBe('/admin%2Fgql');
  });

  it('resolves dot segments as the URL parser does, and leaves a path that leaves the prefix to Next', () => {
    expect(routed('/api/manager/folders/../admin/gql').path).toBe('/admin/gql');
    expect(routed('/api/manager/folders/%2e%2e/admin/gql').path).toBe('/admin/gql');
    expect(routed('/api/manager/../healthz')).toEqual({ url: '/api/manager/../healthz', path: undefined });
  });

  it('never keeps the header from the browser', () => {
    expect(routed('/api/healthz', { [RELAY_PATH_HEADER]: '/admin/gql' })).toEqual({ url: '/api/healthz', path: undefined });
    expect(routed('/api/manager', { [RELAY_PATH_HEADER]: '/admin/gql' })).toEqual({ url: '/api/manager', path: undefined });
    expect(routed('/api/manager/v2', { [RELAY_PATH_HEADER]: '/admin/gql' }).path).toBe('/v2');
  });

  it('leaves other paths, and prefixes that only start alike, untouched', () => {
    expect(routed('/api/managerial/v2')).toEqual({ url: '/api/managerial/v2', path: undefined });
    expect(routed('/sessions?x=1')).toEqual({ url: '/sessions?x=1', path: undefined });
  });
});

describe('refuseControlCharacters', () => {
  const refused = (input: unknown, freeText?: string[]) => {
    try {
      refuseControlCharacters(input, freeText);
      return null;
    } catch (err) {
      return (err as { data?: Record<string, string> }).data;
    }
  };

  it('refuses NUL anywhere, free text included, naming the field', () => {
    expect(refused({ code: 'print(1)\u0000' }, ['code'])).toEqual({ code: 'must not contain NUL characters or unpaired surrogates' });
    expect(refused({ a: [{ b: 'x' }, { b: 'y\u0000' }] })).toHaveProperty(['a[1].b']);
    expect(refused({ ['k\u0000']: 1 })).toHaveProperty(['k\u0000']);
  });

  it('refuses unpaired surrogates but keeps paired ones', () => {
    expect(refused({ name: 'a\ud800' })).toHaveProperty('name');
    expect(refused({ name: 'emoji 😀' })).toBeNull();
  });

  it('refuses other control characters outside free text, keeps them inside (and below it)', () => {
    expect(refused({ name: 'a\tb' })).toEqual({ name: 'must not contain control characters' });
    expect(refused({ name: 'a\u0085b' })).toHaveProperty('name');
    expect(refused({ config: { environ: { A: 'line\nbreak\u001b[0m' } } }, ['config.environ'])).toBeNull();
    expect(refused({ config: { environ: { A: 'x' }, tag: 'a\nb' } }, ['config.environ'])).toHaveProperty(['config.tag']);
    expect(refused({ items: [{ code: 'a\nb' }] }, ['items.code'])).toBeNull();
  });

  it('walks deep nesting without recursion', () => {
    let deep: unknown = 'bottom\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(refused({ v: deep })).not.toBeNull();
  });
});

describe('answerJson', () => {
  it('every secret field name ends the way the first pass looks for', () => {
    for (const name of SECRET_FIELDS) expect(SECRET_ENDING.test(`{"${name}":1}`), name).toBe(true);
  });

  it('leaves secret fields out at any depth of a relayed answer only', () => {
    const value = { data: { access_key: 'AK', role: 'user', nested: [{ ssh_private_key: 'K', ssh_public_key: 'P' }], ownerAccessKey: 'AK' } };
    expect(JSON.parse(answerJson(value, true))).toEqual({ data: { role: 'user', nested: [{ ssh_public_key: 'P' }] } });
    expect(JSON.parse(answerJson(value, false))).toEqual(value);
  });
});
