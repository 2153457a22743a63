/** §User, domain and group configuration: dotfiles per user, domain and project, and the user's bootstrap script (CONTRACT §14.3). */
import { z } from 'zod';
import { emptyAfter, route, type RequestContext } from '../http/route';
import { bootstrapScript, dotfilePath, dotfilePermission, storable } from '../userconfig/validation';
import { createDotfile, deleteDotfile, getDotfile, listDotfiles, updateDotfile, type DotfileOwner } from '../userconfig/dotfiles';
import { domainOwner, groupOwner, userOwner, type Access } from '../userconfig/owners';
import { getBootstrapScript, setBootstrapScript } from '../userconfig/bootstrap-script';

const name = () => z.string().min(1);
const ownerKey = z.string().nullish();
const dotfile = z.object({ path: dotfilePath(), permission: dotfilePermission(), data: storable() });
/** GET: without `path` (or with an empty one) the whole list, with `path` the single-item form. */
const optionalPath = z.object({ path: z.string().optional() });
const requiredPath = z.object({ path: name() });

const userScope = z.object({ owner_access_key: ownerKey });
const domainScope = z.object({ domain: name() });
const groupScope = z.object({ group: name(), domain: name().nullish() });

type Resolve<I> = (ctx: RequestContext<I>, access: Access) => Promise<DotfileOwner>;

const ofUser: Resolve<z.infer<typeof userScope>> = (ctx) => userOwner(ctx.app, ctx.principal, ctx.input.owner_access_key);
const ofDomain: Resolve<z.infer<typeof domainScope>> = (ctx, access) => domainOwner(ctx.app, ctx.principal, ctx.input.domain, access);
const ofGroup: Resolve<z.infer<typeof groupScope>> = (ctx, access) => groupOwner(ctx.app, ctx.principal, ctx.input.group, ctx.input.domain, access);

/** The four dotfile routes of one scope: the rules are the same everywhere, only who may write and whose list differ. */
function dotfileRoutes<I>(path: string, scope: z.ZodType<I>, writePrivilege: 'user' | 'admin', label: string, resolve: Resolve<I>) {
  return [
    route({
      method: 'POST', path, privilege: writePrivilege, status: 'FROZEN', input: scope.and(dotfile), freeText: ['data'],
      summary: `Create a dotfile of ${label}`,
      handler: async (ctx) => emptyAfter(createDotfile(ctx.app, await resolve(ctx, 'write'), ctx.input)),
    }),
    route({
      method: 'GET', path, privilege: 'user', status: 'FROZEN', input: scope.and(optionalPath),
      summary: `The dotfiles of ${label} (with path: one of them)`,
      handler: async (ctx) => {
        const owner = await resolve(ctx, 'read');
        return ctx.input.path ? getDotfile(ctx.app, owner, ctx.input.path) : listDotfiles(ctx.app, owner);
      },
    }),
    route({
      method: 'PATCH', path, privilege: writePrivilege, status: 'FROZEN', input: scope.and(dotfile), freeText: ['data'],
      summary: `Replace the data and permission of a dotfile of ${label}`,
      handler: async (ctx) => emptyAfter(updateDotfile(ctx.app, await resolve(ctx, 'write'), ctx.input)),
    }),
    route({
      method: 'DELETE', path, privilege: writePrivilege, status: 'FROZEN', input: scope.and(requiredPath),
      summary: `Delete a dotfile of ${label}`,
      handler: async (ctx) => {
        await deleteDotfile(ctx.app, await resolve(ctx, 'write'), ctx.input.path);
        return { success: true };
      },
    }),
  ];
}

export const userConfigRoutes = [
  ...dotfileRoutes('/user-config/dotfiles', userScope, 'user', 'the caller (or owner_access_key)', ofUser),
  route({
    method: 'POST', path: '/user-config/bootstrap-script', privilege: 'user', status: 'FROZEN', freeText: ['script'],
    input: userScope.extend({ script: bootstrapScript() }),
    summary: 'Set the bootstrap script run before a new session is ready (≤64 KiB; empty clears it)',
    handler: async (ctx) => emptyAfter(setBootstrapScript(ctx.app, (await ofUser(ctx, 'write')).id, ctx.input.script)),
  }),
  route({
    method: 'GET', path: '/user-config/bootstrap-script', privilege: 'user', status: 'FROZEN', input: userScope,
    summary: 'The bootstrap script, as a JSON string',
    handler: async (ctx) => getBootstrapScript(ctx.app, (await ofUser(ctx, 'read')).id),
  }),
  ...dotfileRoutes('/domain-config/dotfiles', domainScope, 'admin', 'a domain', ofDomain),
  ...dotfileRoutes('/group-config/dotfiles', groupScope, 'admin', 'a project', ofGroup),
];
