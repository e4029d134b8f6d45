import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthenticationError } from '../authenticator-types.ts';
import { makeWorld } from './test-fixtures.ts';

test('legacy Secret-based tokens: good while the Secret holds them and the ServiceAccount keeps its uid', async () => {
  const w = await makeWorld();
  try {
    const uid = await w.put('serviceaccounts', 'lab', 'old');
    const token = await w.authn.issueLegacyServiceAccountToken({
      namespace: 'lab',
      serviceAccountName: 'old',
      serviceAccountUid: uid,
      secretName: 'old-token',
    });
    const secret = (data: string, labels: Record<string, string> = {}) =>
      w.put('secrets', 'lab', 'old-token', {
        type: 'kubernetes.io/service-account-token',
        metadata: { labels },
        data: { token: Buffer.from(data).toString('base64') },
      });
    await secret(token);
    const bearer = { headers: { authorization: `Bearer ${token}` } };
    assert.deepEqual(await w.authn.authenticate(bearer), {
      user: {
        username: 'system:serviceaccount:lab:old',
        uid,
        groups: ['system:serviceaccounts', 'system:serviceaccounts:lab', 'system:authenticated'],
      },
      authenticator: 'serviceaccount',
      audiences: ['https://kubernetes.default.svc.cluster.local'],
    });
    const refusals: [string, () => Promise<unknown>, string | RegExp][] = [
      ['another token in the Secret', () => secret('something-else'), "Token does not match server's copy"],
      ['marked invalid', () => secret(token, { 'kubernetes.io/legacy-token-invalid-since': '2026-01-01' }), 'Token has been invalidated'],
      ['Secret deleted', () => w.remove('secrets', 'lab', 'old-token'), 'Token has been invalidated'],
      [
        'ServiceAccount recreated',
        async () => {
          await secret(token);
          await w.put('serviceaccounts', 'lab', 'old');
        },
        /^ServiceAccount UID \(uid-serviceaccounts-old-\d+\) does not match claim \(uid-serviceaccounts-old-\d+\)$/,
      ],
    ];
    for (const [name, setup, want] of refusals) {
      await setup();
      await assert.rejects(w.authn.authenticate(bearer), (err: unknown) => {
        assert.ok(err instanceof AuthenticationError, name);
        if (typeof want === 'string') assert.equal(err.message, want, name);
        else assert.match(err.message, want, name);
        return true;
      });
    }
  } finally {
    await w.close();
  }
});
