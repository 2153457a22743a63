/** The problem+json body every Berth error answer carries (CONTRACT §6); shared by the pages and the BFF. */
export interface ProblemBody {
  type?: string;
  title?: string;
  detail?: string;
  [key: string]: unknown;
}

/** An error answer from /api/manager/..., thrown by the data hooks. */
export class ManagerError extends Error {
  constructor(
    readonly status: number,
    readonly problem: ProblemBody,
  ) {
    super(problem.detail ?? problem.title ?? `Request failed with status ${status}`);
    this.name = 'ManagerError';
  }
}

/** Reads a problem from a failed response; a body that is not problem+json becomes its detail. */
export async function problemFrom(response: Response): Promise<ProblemBody> {
  const text = await response.text();
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as ProblemBody;
  } catch {
    // not JSON: fall through
  }
  return { title: response.statusText || `HTTP ${response.status}`, detail: text.slice(0, 500) || undefined };
}
