/**
 * Berth's Node flags and environment (scripts/node-flags.mjs) reach the process `npm start` runs: package.json's
 * start script spells them out (V8 and glibc read them as the process starts), and the benches start the server
 * with the same ones.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_ENV, SERVER_NODE_FLAGS, serverCommand } from '../../scripts/node-flags.mjs';

const root = path.resolve(__dirname, '../..');

describe('Node flags of the server process', () => {
  const start = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(/\s+/);
  const node = start.indexOf('node');

  it('npm start passes every flag to node, before the script', () => {
    expect(start.slice(node + 1, node + 1 + SERVER_NODE_FLAGS.length)).toEqual(SERVER_NODE_FLAGS);
    expect(start[node + 1 + SERVER_NODE_FLAGS.length]).toBe('scripts/start.mjs');
  });

  it('npm start sets exactly the environment, before node', () => {
    const assignments = Object.fromEntries(start.slice(0, node).map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]));
    expect(assignments).toEqual(SERVER_ENV);
  });

  it('the benches start the server with them, then their own flags', () => {
    expect(serverCommand('/r', '--cpu-prof')).toEqual([...SERVER_NODE_FLAGS, '--cpu-prof', '/r/dist/server.mjs']);
  });
});
