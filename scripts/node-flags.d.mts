export const SERVER_NODE_FLAGS: string[];
export function serverCommand(root: string, ...nodeArgs: string[]): string[];
export const SERVER_ENV: Record<string, string>;
