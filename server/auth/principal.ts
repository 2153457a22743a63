/** Who is calling: the keypair of a verified request and the user behind it. */
export type UserRole = 'superadmin' | 'admin' | 'user' | 'monitor';

export interface Principal {
  accessKey: string;
  secretKey: string;
  isAdmin: boolean;
  rateLimit: number | null;
  keypairPolicy: string;
  userId: string;
  email: string;
  username: string;
  role: UserRole;
  status: string;
  domainName: string;
  allowedClientIp: string[] | null;
}

export function isSuperadmin(p: Principal): boolean {
  return p.role === 'superadmin';
}

/** Domain admin or above (CONTRACT §2.3: admin = the keypair's is_admin; a superadmin is always an admin). */
export function isAdmin(p: Principal): boolean {
  return p.isAdmin || p.role === 'superadmin';
}
