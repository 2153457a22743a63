/** Creates a user with a main keypair and project memberships: used by bootstrap, signup and GraphQL. */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db';
import { json } from '../db';
import { hashPassword } from '../auth/passwords';
import { generateAccessKey, generateSecretKey } from '../auth/keys';
import { Problem } from '../http/problem';
import type { UserRole } from '../auth/principal';

export interface CreateUserInput {
  email: string;
  username?: string;
  password: string;
  domainName: string;
  role?: UserRole;
  status?: string;
  fullName?: string;
  description?: string;
  needPasswordChange?: boolean;
  resourcePolicy?: string;
  allowedClientIp?: string[] | null;
  /** Project ids to join; defaults to the domain's `default` project when it exists. */
  groupIds?: string[];
  keypair?: { accessKey?: string; secretKey?: string; isAdmin?: boolean; rateLimit?: number | null; resourcePolicy?: string };
}

export interface CreatedUser {
  uuid: string;
  email: string;
  username: string;
  accessKey: string;
  secretKey: string;
}

export async function createUser(db: Db, input: CreateUserInput): Promise<CreatedUser> {
  const uuid = randomUUID();
  const username = input.username ?? input.email;
  const passwordHash = await hashPassword(input.password);
  const accessKey = input.keypair?.accessKey ?? generateAccessKey();
  const secretKey = input.keypair?.secretKey ?? generateSecretKey();
  const role = input.role ?? 'user';
  await db.transaction().execute(async (trx) => {
    const clash = await trx
      .selectFrom('users')
      .select('uuid')
      .where((eb) => eb.or([eb('email', '=', input.email), eb('username', '=', username)]))
      .executeTakeFirst();
    if (clash) throw new Problem('generic-bad-request', 'Email already exists', undefined);
    const domain = await trx.selectFrom('domains').select('name').where('name', '=', input.domainName).executeTakeFirst();
    if (!domain) throw new Problem('invalid-api-params', `No such domain: ${input.domainName}`);
    await trx
      .insertInto('users')
      .values({
        uuid,
        username,
        email: input.email,
        password: passwordHash,
        need_password_change: input.needPasswordChange ?? false,
        full_name: input.fullName ?? '',
        description: input.description ?? '',
        status: input.status ?? 'active',
        domain_name: input.domainName,
        role,
        resource_policy: input.resourcePolicy ?? 'default',
        allowed_client_ip: json(input.allowedClientIp ?? null),
        main_access_key: accessKey,
        dotfiles: json([]),
      })
      .execute();
    await trx
      .insertInto('keypairs')
      .values({
        access_key: accessKey,
        secret_key: secretKey,
        user_id: uuid,
        is_admin: input.keypair?.isAdmin ?? (role === 'superadmin' || role === 'admin'),
        rate_limit: input.keypair?.rateLimit === undefined ? 10000 : input.keypair.rateLimit,
        resource_policy: input.keypair?.resourcePolicy ?? 'default',
      })
      .execute();
    let groupIds = input.groupIds;
    if (!groupIds) {
      const fallback = await trx
        .selectFrom('groups')
        .select('id')
        .where('domain_name', '=', input.domainName)
        .where('name', '=', 'default')
        .executeTakeFirst();
      groupIds = fallback ? [fallback.id] : [];
    }
    if (groupIds.length) {
      await trx
        .insertInto('association_groups_users')
        .values(groupIds.map((group_id) => ({ group_id, user_id: uuid })))
        .execute();
    }
  });
  return { uuid, email: input.email, username, accessKey, secretKey };
}
