/** §Client error logs (CONTRACT §14.4). */
import { z } from 'zod';
import { route } from '../http/route';
import { bool, int, uuid } from '../http/params';
import { SEVERITIES, recordErrorLog, listErrorLogs, clearErrorLog, markErrorLogsRead } from '../logs/error-logs';

const noNul = (s: string) => !s.includes('\0');
const text = () => z.string().refine(noNul, 'must not contain NUL characters');
const required = () => text().refine((s) => s.length > 0, 'must not be empty');
const INT4_MAX = 2147483647;

export const logRoutes = [
  route({
    method: 'POST', path: '/logs/error', privilege: 'user', status: 'FROZEN', freeText: ['message', 'traceback', 'context_env'],
    input: z.object({
      // Case-insensitive on input, stored and returned in lower case (CONTRACT §5.6).
      severity: z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(SEVERITIES)),
      source: required(),
      message: required(),
      context_lang: required(),
      context_env: text(),
      request_url: text().nullish(),
      request_status: int().refine((n) => Math.abs(n) <= INT4_MAX, 'out of range').nullish(),
      traceback: text().nullish(),
    }),
    summary: 'Record an error a client ran into',
    handler: ({ app, principal, input }) => recordErrorLog(app, principal, input),
  }),
  route({
    method: 'GET', path: '/logs/error', privilege: 'user', status: 'FROZEN',
    input: z.object({
      mark_read: bool().default(false),
      page_size: int().refine((n) => n >= 1 && n <= 100, 'must be between 1 and 100').default(20),
      page_no: int().refine((n) => n >= 1 && n <= 1_000_000, 'must be between 1 and 1000000').default(1),
    }),
    summary: 'Error logs the caller may see, newest first (mark_read marks the page read; signed API clients only)',
    handler: ({ app, principal, input, relayed }) => listErrorLogs(app, principal, input, relayed),
  }),
  route({
    method: 'POST', path: '/logs/error/mark-read', privilege: 'user', status: 'FROZEN',
    input: z.object({ log_ids: z.array(uuid()).min(1, 'name at least one log').max(100, 'at most 100 logs at once') }),
    summary: 'Mark error logs read (those of the given ids the caller may see)', response: '{"success": true, "marked": <count>}',
    handler: ({ app, principal, input }) => markErrorLogsRead(app, principal, input.log_ids),
  }),
  route({
    method: 'POST', path: '/logs/error/:log_id/clear', privilege: 'user', status: 'FROZEN',
    input: z.object({ log_id: z.string() }),
    summary: 'Clear an error log (owner or admin)',
    handler: ({ app, principal, input }) => clearErrorLog(app, principal, input.log_id),
  }),
];
