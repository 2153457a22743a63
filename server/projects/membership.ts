/** Whether a user belongs to a project (`association_groups_users`): the one membership lookup every domain asks. */
import type { App } from '../app';

export async function isProjectMember(app: Pick<App, 'db'>, member: { userId: string; projectId: string }): Promise<boolean> {
  const row = await app.db
    .selectFrom('association_groups_users')
    .select('group_id')
    .where('group_id', '=', member.projectId)
    .where('user_id', '=', member.userId)
    .executeTakeFirst();
  return row !== undefined;
}
