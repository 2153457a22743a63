/** The problem+json body of CONTRACT §6.1. */
import { describe, expect, it } from 'vitest';
import { Problem } from '../../server/http/problem';

describe('Problem.toJSON', () => {
  it('carries type, title, detail and msg, and data when given', () => {
    expect(new Problem('object-not-found', 'No session "x".', { name: 'x' }, { title: 'No such session.' }).toJSON()).toEqual({
      type: 'https://errors.berth.dev/object-not-found',
      title: 'No such session.',
      detail: 'No session "x".',
      msg: 'No session "x".',
      data: { name: 'x' },
    });
  });

  it('uses the title as detail when none is given (detail is always present)', () => {
    expect(new Problem('server-frozen').toJSON().detail).toBe('The server is frozen due to maintenance. Please try again later.');
  });

  it.each(['kernel-creation-failed', 'kernel-destruction-failed', 'kernel-restart-failed', 'kernel-execution-failed'] as const)(
    '%s adds agent_details (agent-failure unless told otherwise)',
    (slug) => {
      const body = new Problem(slug, 'the agent went away').toJSON();
      expect(body.agent_details).toEqual({ type: 'https://errors.berth.dev/agent-failure', title: expect.any(String), exception: 'the agent went away' });
    },
  );

  it('names the agent failure kind the thrower gives', () => {
    const body = new Problem('kernel-execution-failed', 'no answer', undefined, { agentFailure: 'timeout' }).toJSON();
    expect((body.agent_details as { type: string }).type).toBe('https://errors.berth.dev/agent-timeout');
  });

  it('adds no agent_details to other problems', () => {
    expect(new Problem('internal-server-error').toJSON()).not.toHaveProperty('agent_details');
  });
});
