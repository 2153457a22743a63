/**
 * `GET /acl`: the storage-host permissions (CONTRACT §5.3) the caller holds on any host. The logic lives with
 * the other host-permission rules in server/storage/host-permissions.ts, so folders and /acl agree.
 */
export { hostPermissionList } from '../storage/host-permissions';
