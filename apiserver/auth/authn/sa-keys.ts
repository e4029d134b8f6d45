// The ServiceAccount token signing key: a key pair kept in DIR/pki/sa.key
// (PKCS#8, mode 0600) and DIR/pki/sa.pub (SPKI), made on first start and
// reused after, as kubeadm makes sa.key/sa.pub once. kube-apiserver signs with
// RSA (RS256) or ECDSA P-256 (ES256) keys; kubeadm makes RSA 2048, whose
// generation costs ~260 ms of a first start, so ksim makes an ECDSA P-256 key
// (under 1 ms) and still accepts an RSA sa.key it finds. The key ID is kube's
// keyIDFromPublicKey: base64url(SHA-256(DER SubjectPublicKeyInfo)).
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The signing key, its public half and its kube key ID. */
export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  kid: string;
  /** The JWS algorithm of the key: RS256 for RSA, ES256 for ECDSA P-256. */
  alg: 'RS256' | 'ES256';
}

/** kube's keyIDFromPublicKey: the base64url (unpadded) SHA-256 of the DER public key. */
export function keyIdOf(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url');
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/** Loads DIR/pki/sa.key, or makes and writes the pair when there is none. */
export async function loadOrCreateSigningKey(dataDir: string): Promise<SigningKey> {
  const dir = join(dataDir, 'pki');
  const keyPath = join(dir, 'sa.key');
  const pubPath = join(dir, 'sa.pub');
  let pem: string | undefined;
  try {
    pem = await readFile(keyPath, 'utf8');
  } catch (err) {
    if (!isMissing(err)) throw err;
  }
  if (pem === undefined) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const keyPem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    try {
      // 'wx': a second process starting at the same moment keeps the first one's key.
      await writeFile(keyPath, keyPem, { mode: 0o600, flag: 'wx' });
      await writeFile(pubPath, pair.publicKey.export({ type: 'spki', format: 'pem' }) as string, { mode: 0o644 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    pem = await readFile(keyPath, 'utf8');
  }
  return signingKeyOf(pem, keyPath);
}

/** Reads a signing key someone else made (the controller-manager's --service-account-private-key-file). */
export async function loadSigningKeyFile(keyPath: string): Promise<SigningKey> {
  return signingKeyOf(await readFile(keyPath, 'utf8'), keyPath);
}

/** The signing key in `pem` (read from `keyPath`), if kube can sign ServiceAccount tokens with it. */
function signingKeyOf(pem: string, keyPath: string): SigningKey {
  const privateKey = createPrivateKey(pem);
  const publicKey = createPublicKey(privateKey);
  const kid = keyIdOf(publicKey);
  if (privateKey.asymmetricKeyType === 'rsa') return { privateKey, publicKey, kid, alg: 'RS256' };
  const curve = privateKey.asymmetricKeyDetails?.namedCurve;
  if (privateKey.asymmetricKeyType === 'ec' && curve === 'prime256v1') return { privateKey, publicKey, kid, alg: 'ES256' };
  throw new Error(
    `${keyPath}: expected an RSA or ECDSA P-256 private key, found ${privateKey.asymmetricKeyType}${curve ? ` (${curve})` : ''}`,
  );
}
