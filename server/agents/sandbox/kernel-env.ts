/** The environment every kernel starts with, whichever backend runs it. */

const BASE: Record<string, string> = {
  HOME: '/home/work',
  USER: 'work',
  LOGNAME: 'work',
  SHELL: '/bin/bash',
  LANG: 'C.UTF-8',
  PYTHONUNBUFFERED: '1',
};

/**
 * The base environment with the backend's PATH (the layout of what the kernel runs in) under the request's
 * `environ`; HOME stays the kernel's home whatever the request says.
 */
export function kernelEnviron(path: string, environ: Record<string, string>): Record<string, string> {
  return { ...BASE, PATH: path, ...environ, HOME: '/home/work' };
}
