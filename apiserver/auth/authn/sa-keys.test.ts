// The ServiceAccount signing key: made once as ECDSA P-256, and an RSA key
// from an older data dir (or kubeadm's sa.key) kept and used as RS256.
import assert from 'node:assert/strict';
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';
import { loadOrCreateSigningKey } from './sa-keys.ts';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ksim-sa-keys-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const kidOf = (pem: string) =>
  createHash('sha256')
    .update(createPublicKey(pem).export({ type: 'spki', format: 'der' }))
    .digest('base64url');

test('a new data dir gets an ECDSA P-256 key (ES256), written once with its public half', async () => {
  await withDir(async (dir) => {
    const key = await loadOrCreateSigningKey(dir);
    assert.equal(key.alg, 'ES256');
    assert.equal(key.privateKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    const pem = await readFile(join(dir, 'pki', 'sa.key'), 'utf8');
    assert.equal((await stat(join(dir, 'pki', 'sa.key'))).mode & 0o777, 0o600);
    assert.equal(key.kid, kidOf(await readFile(join(dir, 'pki', 'sa.pub'), 'utf8')));
    const again = await loadOrCreateSigningKey(dir);
    assert.equal(again.kid, key.kid);
    assert.equal(await readFile(join(dir, 'pki', 'sa.key'), 'utf8'), pem);
  });
});

test('an RSA sa.key already in the data dir is kept and signs RS256', async () => {
  await withDir(async (dir) => {
    await mkdir(join(dir, 'pki'));
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    await writeFile(join(dir, 'pki', 'sa.key'), pem, { mode: 0o600 });
    const key = await loadOrCreateSigningKey(dir);
    assert.equal(key.alg, 'RS256');
    assert.equal(key.kid, kidOf(pem));
  });
});

test('a key kube cannot sign ServiceAccount tokens with is refused, naming the file and the key', async () => {
  await withDir(async (dir) => {
    await mkdir(join(dir, 'pki'));
    const cases: [string, string][] = [
      [generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 'ed25519'],
      [
        generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
        'ec (secp384r1)',
      ],
    ];
    for (const [pem, found] of cases) {
      await writeFile(join(dir, 'pki', 'sa.key'), pem, { mode: 0o600 });
      await assert.rejects(loadOrCreateSigningKey(dir), {
        message: `${join(dir, 'pki', 'sa.key')}: expected an RSA or ECDSA P-256 private key, found ${found}`,
      });
    }
  });
});
