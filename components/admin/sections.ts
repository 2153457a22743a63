/** The administration area's sections and who may open them (the manager enforces the same privileges). */

export const ADMIN_ROLES = ['admin', 'superadmin'];

export interface AdminSection {
  href: string;
  label: string;
  /** Only superadmins: the manager's status, announcements and raw configuration are superadmin operations. */
  superadminOnly?: boolean;
}

export const ADMIN_SECTIONS: AdminSection[] = [
  { href: '/admin/users', label: 'Users' },
  { href: '/admin/projects', label: 'Projects' },
  { href: '/admin/sessions', label: 'All sessions' },
  { href: '/admin/images', label: 'Images' },
  { href: '/admin/storage', label: 'Storage' },
  { href: '/admin/agents', label: 'Agents' },
  { href: '/admin/presets', label: 'Resource presets' },
  { href: '/admin/resource-policies', label: 'Resource policies' },
  { href: '/admin/scaling-groups', label: 'Scaling groups' },
  { href: '/admin/queue', label: 'Queue', superadminOnly: true },
  { href: '/admin/manager', label: 'Manager', superadminOnly: true },
  { href: '/admin/error-logs', label: 'Error logs' },
  { href: '/admin/audit-log', label: 'Audit log', superadminOnly: true },
  { href: '/admin/config', label: 'Configuration', superadminOnly: true },
];

export function isAdminRole(role: string): boolean {
  return ADMIN_ROLES.includes(role);
}

export function sectionsFor(role: string): AdminSection[] {
  if (!isAdminRole(role)) return [];
  return ADMIN_SECTIONS.filter((s) => !s.superadminOnly || role === 'superadmin');
}
