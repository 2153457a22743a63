/**
 * A kernel's channel credentials, made at launch: a random secret and a self-signed ECDSA P-256 certificate whose
 * private key only the kernel's node-side launcher ever holds. The manager keeps the secret and the certificate's
 * fingerprint (./endpoint); the key and certificate go to the launcher in a root-only file it deletes once read.
 */
import { randomBytes, webcrypto, X509Certificate } from 'node:crypto';

let x509Library: Promise<typeof import('@peculiar/x509')> | undefined;

/**
 * @peculiar/x509, loaded at the first launch that needs it: with its ~170 modules it is a few MB of code and heap
 * that a manager running no backend with a kernel channel (the local sandbox alone) never uses.
 */
function x509(): Promise<typeof import('@peculiar/x509')> {
  x509Library ??= (async () => {
    // It resolves its parts through tsyringe, which needs the Reflect metadata polyfill loaded first.
    await import('reflect-metadata');
    const library = await import('@peculiar/x509');
    library.cryptoProvider.set(webcrypto as unknown as Crypto);
    return library;
  })();
  return x509Library;
}

export interface ChannelCredentials {
  secret: string;
  certPem: string;
  keyPem: string;
  fingerprint256: string;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export async function createChannelCredentials(kernelId: string): Promise<ChannelCredentials> {
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const { X509CertificateGenerator } = await x509();
  const cert = await X509CertificateGenerator.createSelfSigned({
    serialNumber: randomBytes(8).toString('hex'),
    name: `CN=berth-kernel-${kernelId}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 10 * 365 * 86_400_000),
    keys,
    signingAlgorithm: ALGORITHM,
  });
  const certPem = cert.toString('pem');
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END PRIVATE KEY-----\n`;
  return { secret: randomBytes(32).toString('base64url'), certPem, keyPem, fingerprint256: new X509Certificate(certPem).fingerprint256 };
}
