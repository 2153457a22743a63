/**
 * Berth's Node flags (scripts/node-flags.mjs) reach the process `npm start` runs: package.json's start script
 * spells them out (V8 reads them as it creates the heap), and the benches start the server with the same list.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS, serverCommand } from '../../scripts/node-flags.mjs';

const root = path.resolve(__dirname, '../..');

describe('Node flags of the server process', () => {
  it('npm start passes every one of them to node, before the script', () => {
    const start = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(/\s+/);
    expect(start[0]).toBe('node');
    expect(start.slice(1, 1 + SERVER_NODE_FLAGS.length)).toEqual(SERVER_NODE_FLAGS);
    expect(start[1 + SERVER_NODE_FLAGS.length]).toBe('scripts/start.mjs');
  });

  it('the benches start the server with them, then their own flags', () => {
    expect(serverCommand('/r', '--cpu-prof')).toEqual([...SERVER_NODE_FLAGS, '--cpu-prof', '/r/dist/server.mjs']);
  });
});
