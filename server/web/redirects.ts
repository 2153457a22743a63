/**
 * Where the dashboard may send a browser after signing in or out: only to its own origin. A `callbackUrl` is
 * resolved the way the browser will resolve it (so `//evil.example`, `/\evil.example` or a tab inside the URL are
 * judged as what they really are) and anything that lands on another origin becomes the dashboard's home page.
 */
export function safeCallbackUrl(url: string, baseUrl: string): string {
  const base = new URL(baseUrl);
  try {
    const target = new URL(url, base);
    if (target.origin === base.origin && (target.protocol === 'http:' || target.protocol === 'https:')) return target.href;
  } catch {
    // not a URL at all
  }
  return new URL('/', base).href;
}
