/** Cookie parsing, and what the app proxy forwards: the apps' own cookies pass; Berth's and the dashboard's never do. */
const NEVER_FORWARDED = /^(berth_app_|next-auth\.|__Secure-next-auth\.|__Host-next-auth\.)/;

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const name = part.slice(0, at).trim();
    if (!(name in out)) out[name] = part.slice(at + 1).trim();
  }
  return out;
}

/** The Cookie header to send upstream: every cookie except Berth's and the dashboard's. */
export function forwardedCookies(cookies: Record<string, string>): string {
  return Object.entries(cookies)
    .filter(([name]) => !NEVER_FORWARDED.test(name))
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');
}
