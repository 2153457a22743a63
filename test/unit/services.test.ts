/** Pure parts of model services: route choice by traffic ratio, model definitions, the derived status. */
import { describe, expect, it } from 'vitest';
import { pickRoute, type ServiceRoute } from '../../server/services/route-table';
import { parseDefinition } from '../../server/services/model-definition';
import { serviceStatus } from '../../server/graphql/endpoints';

const route = (id: string, traffic_ratio: number): ServiceRoute => ({ route_id: id, session_id: id, kernel_host: '127.0.0.1', kernel_port: 1, traffic_ratio });

describe('pickRoute', () => {
  it('splits the unit interval in proportion to traffic_ratio', () => {
    const routes = [route('a', 1), route('b', 3)];
    expect(pickRoute(routes, 0)!.route_id).toBe('a');
    expect(pickRoute(routes, 0.2499)!.route_id).toBe('a');
    expect(pickRoute(routes, 0.25)!.route_id).toBe('b');
    expect(pickRoute(routes, 0.9999)!.route_id).toBe('b');
  });

  it('never picks a route at 0, and answers null when no route takes traffic', () => {
    const routes = [route('a', 0), route('b', 2), route('c', 0)];
    for (const r of [0, 0.5, 0.999999]) expect(pickRoute(routes, r)!.route_id).toBe('b');
    expect(pickRoute([route('a', 0)], 0.5)).toBeNull();
    expect(pickRoute([], 0.5)).toBeNull();
  });
});

describe('parseDefinition', () => {
  it('reads the start command and the health check with its defaults', () => {
    const def = parseDefinition('models:\n  - name: m\n    service:\n      start_command: python3 serve.py\n      health_check:\n        path: /health\n', 'model-definition.yaml');
    expect(def).toEqual({ startCommand: 'python3 serve.py', healthCheck: { path: '/health', maxRetries: 10, maxWaitTime: 5, expectedStatusCode: 200, initialDelay: 60, interval: 10 } });
    expect(parseDefinition(JSON.stringify({ models: [{ service: { start_command: ['a', 'b'] } }] }), 'm.json')).toEqual({ startCommand: ['a', 'b'], healthCheck: null });
  });

  it('refuses what it cannot use with 400', () => {
    for (const [text, name] of [
      ['models: [', 'm.yaml'],
      ['{', 'm.json'],
      ['models: []', 'm.yaml'],
      ['nothing: here', 'm.yaml'],
      ['models:\n  - service:\n      health_check: {path: health}', 'm.yaml'],
      ['models:\n  - service:\n      health_check: {path: /h, max_retries: 0}', 'm.yaml'],
    ]) {
      expect(() => parseDefinition(text, name), text).toThrow(expect.objectContaining({ status: 400 }));
    }
  });
});

describe('serviceStatus', () => {
  const endpoint = (over: Partial<{ lifecycle_stage: 'created' | 'destroying' | 'destroyed'; retries: number; desired_session_count: number }> = {}) => ({ lifecycle_stage: 'created' as const, retries: 0, desired_session_count: 2, ...over });
  it('follows CONTRACT §5.4', () => {
    expect(serviceStatus(endpoint(), [{ status: 'healthy' }, { status: 'healthy' }])).toBe('HEALTHY');
    expect(serviceStatus(endpoint(), [{ status: 'healthy' }, { status: 'unhealthy' }])).toBe('DEGRADED');
    expect(serviceStatus(endpoint(), [{ status: 'healthy' }, { status: 'provisioning' }])).toBe('PROVISIONING');
    expect(serviceStatus(endpoint(), [{ status: 'healthy' }])).toBe('PROVISIONING');
    expect(serviceStatus(endpoint({ retries: 5 }), [{ status: 'failed_to_start' }])).toBe('UNHEALTHY');
    expect(serviceStatus(endpoint({ lifecycle_stage: 'destroying' }), [])).toBe('DESTROYING');
  });
});
