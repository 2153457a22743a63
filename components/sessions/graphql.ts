'use client';
/** GraphQL through the relay (POST /admin/gql): the data, or a ManagerError carrying the first error's message. */
import { ManagerError } from '@/components/api/problem';
import { managerSend } from '@/components/api/useManager';

interface GraphqlAnswer<T> {
  data?: T;
  errors?: { message: string; extensions?: { code?: string } }[];
}

export async function graphql<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const answer = await managerSend<GraphqlAnswer<T>>('POST', '/admin/gql', { query, variables });
  const error = answer.errors?.[0];
  if (error) throw new ManagerError(400, { type: error.extensions?.code, title: 'The request was refused', detail: error.message });
  if (!answer.data) throw new ManagerError(502, { title: 'Empty answer', detail: 'The manager answered without data.' });
  return answer.data;
}
