import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mkdirInside, writeFileInside } from '../../server/agents/sandbox/scratch-files';

let root: string;
let outside: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'scratch-'));
  outside = mkdtempSync(path.join(tmpdir(), 'outside-'));
  writeFileSync(path.join(outside, 'victim'), 'original');
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('writing into a scratch directory', () => {
  it('writes a file with its mode, creating parents', () => {
    writeFileInside(root, '.config/tool/rc', 'hello', 0o600);
    expect(readFileSync(path.join(root, '.config/tool/rc'), 'utf8')).toBe('hello');
    expect(statSync(path.join(root, '.config/tool/rc')).mode & 0o777).toBe(0o600);
  });

  it('replaces a symlink at the target instead of writing through it', () => {
    symlinkSync(path.join(outside, 'victim'), path.join(root, '.vimrc'));
    writeFileInside(root, '.vimrc', 'mine', 0o644);
    expect(readFileSync(path.join(outside, 'victim'), 'utf8')).toBe('original');
    expect(lstatSync(path.join(root, '.vimrc')).isSymbolicLink()).toBe(false);
    expect(readFileSync(path.join(root, '.vimrc'), 'utf8')).toBe('mine');
  });

  it('refuses a symlinked directory on the way', () => {
    symlinkSync(outside, path.join(root, '.config'));
    expect(() => writeFileInside(root, '.config/victim', 'x', 0o644)).toThrow();
    expect(readFileSync(path.join(outside, 'victim'), 'utf8')).toBe('original');
  });

  it('refuses paths that climb out', () => {
    expect(() => mkdirInside(root, '../escape')).toThrow();
    mkdirSync(path.join(root, 'ok'));
    expect(mkdirInside(root, 'ok/sub')).toBe(path.join(root, 'ok/sub'));
  });
});
