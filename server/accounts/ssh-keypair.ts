/** The caller's SSH keypair: generated as ed25519 in OpenSSH format, or uploaded. */
import { generateKeyPairSync } from 'node:crypto';
import sshpk from 'sshpk';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { Problem } from '../http/problem';

export function generateSshKeypair(comment = 'berth'): { publicKey: string; privateKey: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  // The key's raw halves go to sshpk as they are: parsing the PKCS#8 form instead re-derives the public half in
  // JavaScript (~10 ms a key, and every session start makes two for its sshd).
  const { x, d } = privateKey.export({ format: 'jwk' });
  const key = new sshpk.PrivateKey({
    type: 'ed25519',
    parts: [
      { name: 'A', data: Buffer.from(x!, 'base64url') },
      { name: 'k', data: Buffer.from(d!, 'base64url') },
    ],
  });
  key.comment = comment;
  return { publicKey: key.toPublic().toString('ssh') + '\n', privateKey: key.toString('ssh') };
}

function normalise(text: string): string {
  return text.replace(/\n+$/, '') + '\n';
}

async function store(app: App, principal: Principal, publicKey: string, privateKey: string) {
  await app.db
    .updateTable('keypairs')
    .set({ ssh_public_key: publicKey, ssh_private_key: privateKey, modified_at: new Date() })
    .where('access_key', '=', principal.accessKey)
    .execute();
  return { ssh_public_key: publicKey, ssh_private_key: privateKey };
}

export async function getSshPublicKey(app: App, principal: Principal) {
  const row = await app.db.selectFrom('keypairs').select('ssh_public_key').where('access_key', '=', principal.accessKey).executeTakeFirst();
  return { ssh_public_key: row?.ssh_public_key ?? null };
}

export async function regenerateSshKeypair(app: App, principal: Principal) {
  const pair = generateSshKeypair(principal.email);
  return store(app, principal, pair.publicKey, pair.privateKey);
}

export async function uploadSshKeypair(app: App, principal: Principal, input: { pubkey: string; privkey: string }) {
  let publicKey: sshpk.Key;
  let privateKey: sshpk.PrivateKey;
  try {
    publicKey = sshpk.parseKey(input.pubkey, 'auto');
    privateKey = sshpk.parsePrivateKey(input.privkey, 'auto');
  } catch {
    throw new Problem('invalid-api-params', 'The keys are not valid SSH keys.');
  }
  if (publicKey.fingerprint('sha256').toString() !== privateKey.toPublic().fingerprint('sha256').toString()) {
    throw new Problem('invalid-api-params', 'The public key does not belong to the private key.');
  }
  return store(app, principal, normalise(input.pubkey), normalise(input.privkey));
}
