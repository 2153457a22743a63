/** Answers of the storage transfer endpoints, which run outside the API pipeline: problem+json written directly. */
import type { ServerResponse } from 'node:http';
import { PROBLEM_BASE, Problem } from '../../http/problem';

export interface ProblemBody {
  status: number;
  type: string;
  title: string;
  detail: string;
  data?: unknown;
}

/** The two problem types only the storage endpoints answer (CONTRACT §6). */
export function fileNotFound(detail: string): ProblemBody {
  return { status: 404, type: `${PROBLEM_BASE}storage/file-not-found`, title: 'No such file.', detail };
}

export function noSuchUploadSession(detail = 'There is no such upload session (it finished, expired or never existed).'): ProblemBody {
  return { status: 404, type: `${PROBLEM_BASE}storage/no-such-upload-session`, title: 'No such upload session.', detail };
}

export function fromProblem(problem: Problem): ProblemBody {
  const json = problem.toJSON() as { type: string; title: string; detail: string; data?: unknown };
  return { status: problem.status, type: json.type, title: json.title, detail: json.detail, data: json.data };
}

export function problemText(body: ProblemBody): string {
  const out: Record<string, unknown> = { type: body.type, title: body.title, detail: body.detail, msg: body.detail };
  if (body.data !== undefined) out.data = body.data;
  return JSON.stringify(out);
}

export function sendProblem(res: ServerResponse, body: ProblemBody, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = problemText(body);
  res.writeHead(body.status, {
    ...headers,
    'Content-Type': 'application/problem+json',
    'Content-Length': String(Buffer.byteLength(text)),
    'Cache-Control': 'no-store',
  });
  res.end(res.req?.method === 'HEAD' ? undefined : text);
}
