'use client';
/** Users for the admin pages, through GraphQL: the paginated, searchable list, one user, and the mutations. */
import { filterString, graphqlMutation, revalidateGraphql, useGraphql } from '@/components/api/graphql';

export interface AdminUser {
  uuid: string;
  email: string;
  username: string | null;
  full_name: string | null;
  description: string | null;
  role: string;
  status: string;
  domain_name: string;
  resource_policy: string;
  created_at: string | null;
  modified_at: string | null;
  groups: { id: string; name: string }[] | null;
}

/** Never main_access_key: keys stay on the server. */
const USER_FIELDS = 'uuid email username full_name description role status domain_name resource_policy created_at modified_at groups { id name }';

export const USER_ROLES = ['user', 'admin', 'superadmin', 'monitor'] as const;
export const USER_STATUSES = ['active', 'inactive', 'before-verification', 'deleted'] as const;

export const ROLE_LABELS: Record<string, string> = { user: 'User', admin: 'Domain admin', superadmin: 'Superadmin', monitor: 'Monitor' };
export const STATUS_LABELS: Record<string, string> = { active: 'Active', inactive: 'Inactive', 'before-verification': 'Awaiting verification', deleted: 'Deleted' };

export interface UserListArgs {
  search: string;
  /** One of USER_STATUSES, or '' for all. */
  status: string;
  page: number;
  pageSize: number;
}

/** The filter for a search box: the text anywhere in the email, username or full name, any case. */
export function userSearchFilter(search: string): string | null {
  const text = search.trim();
  if (!text) return null;
  const pattern = filterString(`%${text}%`);
  return `email ilike ${pattern} | username ilike ${pattern} | full_name ilike ${pattern}`;
}

const LIST_QUERY = `query($limit: Int!, $offset: Int!, $filter: String, $status: String) {
  user_list(limit: $limit, offset: $offset, filter: $filter, status: $status, order: "email") { total_count items { ${USER_FIELDS} } }
}`;

export function useUserList({ search, status, page, pageSize }: UserListArgs) {
  return useGraphql<{ user_list: { total_count: number; items: AdminUser[] } }>(
    LIST_QUERY,
    { limit: pageSize, offset: page * pageSize, filter: userSearchFilter(search), status: status || null },
    { keepPreviousData: true },
  );
}

const USER_QUERY = `query($email: String) { user(email: $email) { ${USER_FIELDS} } }`;

export function useAdminUser(email: string) {
  return useGraphql<{ user: AdminUser | null }>(USER_QUERY, { email });
}

export interface UserFormOptions {
  domains: { name: string; is_active: boolean }[] | null;
  user_resource_policies: { name: string }[] | null;
}

/** Choices for the user form: domains (superadmins only may pick one) and user resource policies. */
export function useUserFormOptions(superadmin: boolean) {
  const query = superadmin ? '{ domains { name is_active } user_resource_policies { name } }' : '{ user_resource_policies { name } }';
  return useGraphql<Partial<UserFormOptions>>(query, undefined, { revalidateOnFocus: false });
}

export interface CreateUserInput {
  email: string;
  username?: string;
  password: string;
  full_name?: string;
  role: string;
  domain_name?: string;
  resource_policy?: string;
  description?: string;
}

export async function createUser({ email, ...props }: CreateUserInput): Promise<void> {
  await graphqlMutation(
    'create_user',
    'mutation($email: String!, $props: UserInput!) { create_user(email: $email, props: $props) { ok msg user { email } } }',
    { email, props: { ...props, status: 'active' } },
  );
  await revalidateGraphql('user_list');
}

export interface ModifyUserInput {
  username?: string;
  password?: string;
  full_name?: string;
  description?: string;
  role?: string;
  status?: string;
  resource_policy?: string;
}

export async function modifyUser(email: string, props: ModifyUserInput): Promise<void> {
  await graphqlMutation(
    'modify_user',
    'mutation($email: String!, $props: ModifyUserInput!) { modify_user(email: $email, props: $props) { ok msg user { email } } }',
    { email, props },
  );
  await Promise.all([revalidateGraphql('user_list'), revalidateGraphql('user(email')]);
}
