import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../shared/api/errors.ts';
import { encodeKubeProtobuf } from '../../shared/api/protobuf/index.ts';
import { decodeBytes } from './decode-object.ts';

const CM = { group: '', version: 'v1', kind: 'ConfigMap' };
const PB = 'application/vnd.kubernetes.protobuf';

function refused(body: Buffer | string, type: string, message: string): void {
  assert.throws(
    () => decodeBytes(Buffer.from(body), type, null, CM),
    (err: unknown) => err instanceof StatusError && err.code === 400 && err.message === message,
  );
}

test('protobuf envelopes kube refuses before reading them', () => {
  refused('', PB, 'the object provided is unrecognized (must be of type ConfigMap): empty data (<empty>)');
  refused(
    '{"a":1}',
    PB,
    'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"a":1})',
  );
  refused('k8s\0', PB, 'the object provided is unrecognized (must be of type ConfigMap): empty body (6b387300)');
  const ok = encodeKubeProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } });
  assert.deepEqual((decodeBytes(ok, PB, null, CM).obj as { data?: unknown }).data, { a: 'b' });
});

test("JSON syntax errors are encoding/json's, read while the kind is", () => {
  refused(
    '{"metadata":',
    'application/json',
    'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"metadata":)',
  );
  refused(
    '{"a":1}}',
    'application/json',
    "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '}' after top-level value ({\"a\":1}})",
  );
});

test('YAML that go-yaml refuses is refused before the kind is known', () => {
  const body = 'data: &d\n  k: *d\n';
  refused(
    body,
    'application/yaml',
    `the object provided is unrecognized (must be of type ConfigMap): yaml: anchor 'd' value contains itself (${Buffer.from(body).toString('hex')})`,
  );
});
