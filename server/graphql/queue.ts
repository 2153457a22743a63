/** scheduling_queues: the operators' queue view (superadmins), see server/sessions/scheduler/queue-view. */
import { schedulingQueues } from '../sessions/scheduler/queue-view';
import { requireSuperadmin, type ResolverMap } from './context';

export const queueTypeDefs = /* GraphQL */ `
  type SchedulingQueueEntry {
    position: Int
    session_id: UUID
    session_name: String
    access_key: String
    user_email: String
    priority: Int
    created_at: DateTime
    requested_slots: JSONString
    "Why the last pass left it pending, in words."
    status_info: String
    "status_data.scheduler: retries, last_try, failed_predicates, passed_predicates."
    scheduler: JSONString
  }

  type SchedulingQueueUser {
    access_key: String
    user_email: String
    "Pending sessions that could start now."
    in_line: Int
    "Pending sessions waiting for their reserved time or dependencies."
    not_ready: Int
  }

  type SchedulingQueue {
    scaling_group: String
    "fifo, lifo or drf."
    scheduler: String
    entries: [SchedulingQueueEntry]
    not_ready: Int
    per_user: [SchedulingQueueUser]
    "The slots the head of the queue asks for."
    head_needs: JSONString
    "The most slots any one agent of the group has free now."
    largest_free: JSONString
  }

  extend type Query {
    "Each scaling group's queue in order (superadmin). limit: entries per group, 100 by default."
    scheduling_queues(scaling_group: String, limit: Int): [SchedulingQueue]
  }
`;

export const queueResolvers: ResolverMap = {
  Query: {
    scheduling_queues: (_root, args: { scaling_group?: string | null; limit?: number | null }, ctx) => {
      requireSuperadmin(ctx);
      return schedulingQueues(ctx.app, args.scaling_group, Math.max(1, Math.min(args.limit ?? 100, 10_000)));
    },
  },
};
