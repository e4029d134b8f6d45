import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { base64Problem } from './config.ts';
import { defaulted, invalidMessage } from './testing.ts';

describe('Go base64 errors', () => {
  const cases: [string, string | undefined][] = [
    ['aGVsbG8=', undefined],
    ['aGVs\nbG8=', undefined],
    ['', undefined],
    ['aGVsbG8', 'illegal base64 data at input byte 4'],
    ['a', 'illegal base64 data at input byte 0'],
    ['ab!c', 'illegal base64 data at input byte 2'],
    ['aGVsbG8=x', 'illegal base64 data at input byte 8'],
    ['aG==', undefined],
    ['a===', 'illegal base64 data at input byte 1'],
  ];
  for (const [s, want] of cases) it(JSON.stringify(s), () => assert.equal(base64Problem(s), want));
});

describe('Secret', () => {
  it('defaults the type and folds stringData into data', () => {
    assert.deepEqual(defaulted('/secrets', { metadata: { name: 's' }, data: { a: 'YQ' + '==' }, stringData: { b: 'hello' } }), {
      metadata: { name: 's' },
      data: { a: 'YQ==', b: 'aGVsbG8=' },
      type: 'Opaque',
    });
  });
  const M = (s: any, old?: any) => invalidMessage('/secrets', 'Secret', '', { metadata: { name: 's', namespace: 'default' }, ...s }, old);
  const cases: [string, any, string][] = [
    ['valid', { data: { 'tls.crt': 'YQ==' } }, ''],
    [
      'bad key',
      { data: { 'a/b': 'YQ==' } },
      `Secret "s" is invalid: data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    ],
    [
      'bad base64',
      { data: { a: 'not base64!' } },
      'Secret "s" is invalid: data[a]: Invalid value: "<secret contents redacted>": illegal base64 data at input byte 3',
    ],
    ['tls needs keys', { type: 'kubernetes.io/tls', data: { 'tls.crt': 'YQ==' } }, 'Secret "s" is invalid: data[tls.key]: Required value'],
    [
      'service account token needs the annotation',
      { type: 'kubernetes.io/service-account-token' },
      'Secret "s" is invalid: metadata.annotations[kubernetes.io/service-account.name]: Required value',
    ],
    [
      'dockerconfigjson must be JSON',
      { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from('nope').toString('base64') } },
      `Secret "s" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character 'n' looking for beginning of value`,
    ],
  ];
  for (const [name, s, want] of cases) it(name, () => assert.equal(M(s), want));
  it('type and immutable data may not change', () => {
    const old = defaulted('/secrets', { metadata: { name: 's' }, immutable: true, data: { a: 'YQ==' } });
    assert.equal(
      M({ type: 'kubernetes.io/basic-auth', immutable: true, data: { a: 'Yg==', username: 'YQ==' } }, old),
      'Secret "s" is invalid: [type: Invalid value: "kubernetes.io/basic-auth": field is immutable, data: Forbidden: field is immutable when `immutable` is set]',
    );
  });
});

describe('ConfigMap', () => {
  const M = (c: any, old?: any) =>
    invalidMessage('/configmaps', 'ConfigMap', '', { metadata: { name: 'c', namespace: 'default' }, ...c }, old);
  it('valid', () => assert.equal(M({ data: { 'app.properties': 'x=1' }, binaryData: { logo: 'iVBORw==' } }), ''));
  it('key in both data and binaryData', () =>
    assert.equal(
      M({ data: { a: 'x' }, binaryData: { a: 'eA==' } }),
      'ConfigMap "c" is invalid: data[a]: Invalid value: "a": duplicate of key present in binaryData',
    ));
  it('bad key', () =>
    assert.equal(
      M({ data: { '..': 'x', '..a': 'y' } }),
      `ConfigMap "c" is invalid: [data[..]: Invalid value: "..": must not be '..', data[..a]: Invalid value: "..a": must not start with '..']`,
    ));
  it('too big', () =>
    assert.equal(
      M({ data: { a: 'x'.repeat(1024 * 1024 + 1) } }),
      'ConfigMap "c" is invalid: []: Too long: may not be more than 1048576 bytes',
    ));
  it('immutable data may not change', () => {
    const old = defaulted('/configmaps', { metadata: { name: 'c' }, immutable: true, data: { a: 'x' } });
    assert.equal(
      M({ immutable: true, data: { a: 'y' } }, old),
      'ConfigMap "c" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    );
  });
});
