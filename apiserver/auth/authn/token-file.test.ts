import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AuthenticationError } from '../authenticator-types.ts';
import { createAuthentication } from './index.ts';
import { makeWorld } from './test-fixtures.ts';
import { parseTokenFile } from './token-file.ts';

test('kube token file CSV: quoted groups, extra columns, blank lines, empty and duplicate tokens', () => {
  const warnings: string[] = [];
  const text = [
    'abc123,alice,uid-1,"dev,ops"',
    '',
    'def456,bob,uid-2',
    ',nobody,uid-3',
    'abc123,alice2,uid-4,admins,ignored',
    '"q""t",carol,uid-5,"one"',
  ].join('\r\n');
  const tokens = parseTokenFile(text, '/etc/tokens.csv', (m) => warnings.push(m));
  assert.deepEqual(Object.fromEntries(tokens), {
    abc123: { username: 'alice2', uid: 'uid-4', groups: ['admins'] },
    def456: { username: 'bob', uid: 'uid-2', groups: [] },
    'q"t': { username: 'carol', uid: 'uid-5', groups: ['one'] },
  });
  assert.deepEqual(warnings, [
    "empty token has been found in token file '/etc/tokens.csv', record number '3'",
    "duplicate token has been found in token file '/etc/tokens.csv', record number '4'",
  ]);
});

test('a malformed token file names the line', () => {
  const cases: [string, string][] = [
    ['tok,alice,uid\ntok2,bob\n', "token file '/f.csv' must have at least 3 columns (token, user name, user uid), found 2 on line 2"],
    ['tok,alice,uid\n\ntok"2,bob,uid\n', `token file '/f.csv': parse error on line 3, column 4: bare " in non-quoted field`],
    ['tok,alice,uid,"dev\n', `token file '/f.csv': parse error on line 2, column 1: extraneous or missing " in quoted-field`],
    ['tok,alice,uid,"dev"x\n', `token file '/f.csv': parse error on line 1, column 20: extraneous or missing " in quoted-field`],
  ];
  for (const [text, want] of cases) assert.throws(() => parseTokenFile(text, '/f.csv'), { message: want }, text);
});

test('static tokens authenticate through the chain, for the API audiences only', async () => {
  const w = await makeWorld();
  try {
    const path = join(w.dir, 'tokens.csv');
    await writeFile(path, 'sekret,jane,42,"system:masters,dev"\n');
    const authn = await createAuthentication({
      store: w.store,
      dataDir: w.dir,
      tokenAuthFile: path,
      now: () => w.clock.now,
      log: (await import('pino')).pino({ level: 'silent' }),
    });
    const got = await authn.authenticate({ headers: { authorization: 'Bearer sekret' } });
    assert.deepEqual(got, {
      user: { username: 'jane', uid: '42', groups: ['system:masters', 'dev', 'system:authenticated'] },
      authenticator: 'token-file',
      audiences: ['https://kubernetes.default.svc.cluster.local'],
    });
    await assert.rejects(
      authn.authenticate({ headers: { authorization: 'Bearer wrong' } }),
      (err) => err instanceof AuthenticationError && err.message === 'invalid bearer token',
    );
    // Asked for another audience (TokenReview), a static token is no token.
    await assert.rejects(authn.authenticateToken('sekret', ['vault']), { message: 'invalid bearer token' });
    // The WebSocket subprotocol carries tokens too.
    const ws = await authn.authenticate({
      headers: {
        upgrade: 'websocket',
        'sec-websocket-protocol': `v5.channel.k8s.io, base64url.bearer.authorization.k8s.io.${Buffer.from('sekret').toString('base64url')}`,
      },
    });
    assert.equal(ws.user.username, 'jane');
    await assert.rejects(
      createAuthentication({
        store: w.store,
        dataDir: w.dir,
        tokenAuthFile: join(w.dir, 'missing.csv'),
        now: () => w.clock.now,
        log: (await import('pino')).pino({ level: 'silent' }),
      }),
      /ENOENT/,
    );
  } finally {
    await w.close();
  }
});
