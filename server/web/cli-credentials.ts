/**
 * The CLI's credentials as a file the dashboard hands out (for users who sign in with single sign-on and have no
 * password for `berth login`). Only a top-level form navigation gets it: the browser saves the attachment, and no
 * page script can read it, because a script's fetch() cannot send the navigation's Sec-Fetch headers (the browser
 * sets them and forbids scripts to).
 */
export type HeaderReader = (name: string) => string | null | undefined;

export function isDocumentNavigation(header: HeaderReader): boolean {
  return header('sec-fetch-mode') === 'navigate' && header('sec-fetch-dest') === 'document';
}

export function cliCredentialsFile(keys: { accessKey: string; secretKey: string }, endpoint: string): string {
  // The shape `berth login` saves (server/client/cli/credentials.ts).
  return JSON.stringify({ endpoint, accessKey: keys.accessKey, secretKey: keys.secretKey }, null, 2) + '\n';
}
