/**
 * What a session's kernels are started with beyond the session row itself, read in one query on the launch's
 * path: the domain's, project's and user's dotfiles, the user's bootstrap script, the keypair's SSH public key, the
 * project's name and the keypair policy's lifetime limit.
 */
import { sql } from 'kysely';
import type { App } from '../app';
import type { Dotfile, Session } from '../db/schema';

export interface KernelContext {
  domainDotfiles: Dotfile[] | null;
  groupDotfiles: Dotfile[] | null;
  userDotfiles: Dotfile[] | null;
  userBootstrapScript: string | null;
  sshPublicKey: string | null;
  groupName: string | null;
  maxSessionLifetime: number | null;
}

export async function loadKernelContext(app: App, session: Pick<Session, 'domain_name' | 'group_id' | 'user_uuid' | 'access_key'>): Promise<KernelContext> {
  // One row of scalar subqueries: each part may be missing (a deleted project or policy) without hiding the rest.
  const row = await app.db
    .selectNoFrom((eb) => [
      eb.selectFrom('domains').select('dotfiles').where('name', '=', session.domain_name).as('domainDotfiles'),
      eb.selectFrom('groups').select('dotfiles').where('id', '=', session.group_id).as('groupDotfiles'),
      eb.selectFrom('groups').select('name').where('id', '=', session.group_id).as('groupName'),
      eb.selectFrom('users').select('dotfiles').where('uuid', '=', session.user_uuid).as('userDotfiles'),
      eb.selectFrom('users').select('bootstrap_script').where('uuid', '=', session.user_uuid).as('userBootstrapScript'),
      eb.selectFrom('keypairs').select('ssh_public_key').where('access_key', '=', session.access_key).as('sshPublicKey'),
      eb
        .selectFrom('keypairs')
        .innerJoin('keypair_resource_policies as p', 'p.name', 'keypairs.resource_policy')
        .select(sql<number | null>`p.max_session_lifetime`.as('max_session_lifetime'))
        .where('keypairs.access_key', '=', session.access_key)
        .as('maxSessionLifetime'),
    ])
    .executeTakeFirstOrThrow();
  return row as KernelContext;
}
