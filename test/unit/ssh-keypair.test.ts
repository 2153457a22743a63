/** The SSH keypairs Berth makes (a user's /auth/ssh-keypair, each session's sshd keys), checked by OpenSSH itself. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateSshKeypair } from '../../server/accounts/ssh-keypair';

const dir = mkdtempSync(path.join(tmpdir(), 'berth-sshkey-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('generateSshKeypair', () => {
  it('makes an ed25519 pair whose public half is the one ssh-keygen derives from the private half', () => {
    const pair = generateSshKeypair('alice@berth');
    const file = path.join(dir, 'id_ed25519');
    writeFileSync(file, pair.privateKey, { mode: 0o600 });
    const derived = execFileSync('ssh-keygen', ['-y', '-f', file], { encoding: 'utf8' }).trim();
    const [type, body, comment] = pair.publicKey.trim().split(' ');
    expect(type).toBe('ssh-ed25519');
    expect(comment).toBe('alice@berth');
    expect(derived.split(' ').slice(0, 2)).toEqual([type, body]);
  });

  it('makes a new key every time', () => {
    const keys = new Set(Array.from({ length: 5 }, () => generateSshKeypair().publicKey));
    expect(keys.size).toBe(5);
  });
});
