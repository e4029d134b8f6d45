// Decoding protobuf bodies against bytes that did not come from our encoder:
// bodies recorded from the real kubectl (kubectl-fixtures.ts) checked against
// the JSON kubectl prints for the same object, and messages built by hand
// from the field numbers in k8s.io/api's generated.proto files.
import type { Pod } from 'kubernetes-types/core/v1.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { decodeKubeProtobuf, encodeKubeProtobuf, KUBE_PROTOBUF_CONTENT_TYPE, ProtobufDecodeError } from './index.ts';
import { KUBECTL_FIXTURES } from './kubectl-fixtures.ts';

// Tiny hand encoders, independent of wire.ts / encode.ts.
const varint = (v: number): number[] => {
  const out: number[] = [];
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
};
const int = (n: number, v: number): number[] => [...varint(n * 8), ...varint(v)];
const str = (n: number, s: string): number[] => [...varint(n * 8 + 2), ...varint(Buffer.byteLength(s)), ...Buffer.from(s)];
const raw = (n: number, b: number[]): number[] => [...varint(n * 8 + 2), ...varint(b.length), ...b];
const msg = (n: number, ...parts: number[][]): number[] => raw(n, parts.flat());
const body = (apiVersion: string, kind: string, ...object: number[][]): Buffer =>
  Buffer.from([0x6b, 0x38, 0x73, 0x00, ...msg(1, str(1, apiVersion), str(2, kind)), ...msg(2, ...object)]);

const decodeError = (b: Uint8Array, message: RegExp | string): void => {
  assert.throws(
    () => decodeKubeProtobuf(b),
    (e: unknown) => {
      assert.ok(e instanceof ProtobufDecodeError, `not a ProtobufDecodeError: ${inspect(e)}`);
      if (typeof message === 'string') assert.equal(e.message, message);
      else assert.match(e.message, message);
      return true;
    },
  );
};

test('golden: Namespace "foo" by hand (envelope, then ObjectMeta.name = field 1 of field 1)', () => {
  const b = Buffer.from(
    '6b387300' + // "k8s\0"
      '0a0f' +
      '0a027631' +
      '12094e616d657370616365' + // typeMeta {apiVersion "v1", kind "Namespace"}
      '1207' +
      '0a05' +
      '0a03666f6f', // raw: Namespace {metadata {name "foo"}}
    'hex',
  );
  const d = decodeKubeProtobuf(b);
  assert.equal(d.apiVersion, 'v1');
  assert.equal(d.kind, 'Namespace');
  // spec and status are non-pointer Go structs: encoding/json always writes them.
  assert.deepEqual(d.object, { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'foo' }, spec: {}, status: {} });
});

test('golden: a Deployment by hand: pointers kept at zero, omitempty zeros dropped, inlined structs', () => {
  const b = body(
    'apps/v1',
    'Deployment',
    msg(1, str(1, 'web'), str(3, 'default'), msg(11, str(1, 'app'), str(2, 'web'))), // metadata
    msg(
      2, // spec
      int(1, 0), // replicas: *int32, so 0 survives
      msg(
        3, // template
        msg(
          2, // PodSpec
          msg(
            2, // containers[0]
            str(1, 'app'),
            str(2, 'nginx:1.27'),
            msg(6, int(3, 8080), str(4, 'TCP')), // ports[0]
            msg(7, str(1, 'MODE'), msg(3, msg(3, msg(1, str(1, 'cfg')), str(2, 'mode')))), // env valueFrom.configMapKeyRef
            // readinessProbe: ProbeHandler (field 1) { httpGet (2) { path 1, port 2 = IntOrString{type 1, strVal 3} } }
            msg(11, msg(1, msg(2, str(1, '/healthz'), msg(2, int(1, 1), str(3, 'http')))), int(2, 5)),
          ),
          // volumes[0]: name 1, VolumeSource (2) { configMap (19) { LocalObjectReference (1) { name 1 } } }
          msg(1, str(1, 'config'), msg(2, msg(19, msg(1, str(1, 'cfg'))))),
        ),
      ),
      int(5, 0), // minReadySeconds: int32 omitempty, dropped at 0
    ),
  );
  assert.deepEqual(decodeKubeProtobuf(b).object, {
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      replicas: 0,
      selector: null, // *LabelSelector without omitempty
      template: {
        metadata: {},
        spec: {
          volumes: [{ name: 'config', configMap: { name: 'cfg' } }],
          containers: [
            {
              name: 'app',
              image: 'nginx:1.27',
              ports: [{ containerPort: 8080, protocol: 'TCP' }],
              env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'mode' } } }],
              resources: {},
              readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, initialDelaySeconds: 5 },
            },
          ],
        },
      },
      strategy: {},
    },
    status: {},
  });
});

test('golden: Time, MicroTime, bytes and int IntOrString by hand', () => {
  const secret = body(
    'v1',
    'Secret',
    msg(1, str(1, 's'), msg(8, int(1, 1796032800), int(2, 999))), // creationTimestamp; nanos dropped in JSON
    msg(2, str(1, 'bin'), raw(2, [0, 1, 2, 255])), // data entry {key, value bytes}
    str(3, 'Opaque'),
  );
  assert.deepEqual(decodeKubeProtobuf(secret).object, {
    kind: 'Secret',
    apiVersion: 'v1',
    metadata: { name: 's', creationTimestamp: '2026-11-30T10:00:00Z' },
    data: { bin: 'AAEC/w==' },
    type: 'Opaque',
  });
  const lease = body(
    'coordination.k8s.io/v1',
    'Lease',
    msg(1, str(1, 'l')),
    msg(2, str(1, 'node-1'), int(2, 40), msg(4, int(1, 1796032800), int(2, 123456789)), int(5, 0)),
  );
  assert.deepEqual(decodeKubeProtobuf(lease).object.spec, {
    holderIdentity: 'node-1',
    leaseDurationSeconds: 40,
    renewTime: '2026-11-30T10:00:00.123456Z',
    leaseTransitions: 0, // *int32
  });
  // ServicePort.targetPort as an int: IntOrString {type 0, intVal 2}.
  const svc = body('v1', 'Service', msg(1, str(1, 'svc')), msg(2, msg(1, int(3, 80), msg(4, int(1, 0), int(2, 8080)))));
  assert.deepEqual(decodeKubeProtobuf(svc).object.spec, { ports: [{ port: 80, targetPort: 8080 }] });
});

test('golden: a SelfSubjectAccessReview by hand, as kubectl auth can-i sends it', () => {
  const b = body(
    'authorization.k8s.io/v1',
    'SelfSubjectAccessReview',
    msg(1),
    msg(2, msg(1, str(1, 'default'), str(2, 'get'), str(3, ''), str(5, 'pods'))),
    msg(3, int(1, 0)),
  );
  assert.deepEqual(decodeKubeProtobuf(b).object, {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: {},
    spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } },
    status: { allowed: false },
  });
});

test('kubectl bodies decode to the JSON kubectl prints for the same object', () => {
  const protobuf = KUBECTL_FIXTURES.filter((f) => f.contentType === KUBE_PROTOBUF_CONTENT_TYPE);
  assert.ok(protobuf.length >= 15);
  for (const f of protobuf) {
    if (!f.dryRunJson) continue;
    assert.deepEqual(decodeKubeProtobuf(Buffer.from(f.body, 'base64')).object, f.dryRunJson, f.command);
  }
});

test('kubectl bodies without a dry run: token, can-i, whoami', () => {
  const decoded = (name: string): any => {
    const f = KUBECTL_FIXTURES.find((x) => x.name === name);
    assert.ok(f, name);
    return decodeKubeProtobuf(Buffer.from(f.body, 'base64')).object;
  };
  assert.deepEqual(decoded('create token'), {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: {},
    spec: { audiences: null, expirationSeconds: 3600, boundObjectRef: null },
    status: { token: '', expirationTimestamp: null },
  });
  assert.deepEqual(decoded('auth can-i'), {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: {},
    spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } },
    status: { allowed: false },
  });
  assert.deepEqual(decoded('auth whoami'), {
    kind: 'SelfSubjectReview',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: {},
    status: { userInfo: {} },
  });
});

test('kubectl run and expose send JSON, not protobuf', () => {
  for (const name of ['run', 'expose']) {
    const f = KUBECTL_FIXTURES.find((x) => x.name === name);
    assert.ok(f, name);
    assert.equal(f.contentType, 'application/json');
    assert.ok(JSON.parse(Buffer.from(f.body, 'base64').toString()).kind);
  }
});

test('encoding what kubectl printed gives kubectl bytes exactly', () => {
  for (const f of KUBECTL_FIXTURES) {
    if (f.contentType !== KUBE_PROTOBUF_CONTENT_TYPE) continue;
    const bytes = Buffer.from(f.body, 'base64');
    const json = f.dryRunJson ?? decodeKubeProtobuf(bytes).object;
    assert.equal(encodeKubeProtobuf(json).toString('hex'), bytes.toString('hex'), f.command);
  }
});

test('unknown fields, groups included, are skipped', () => {
  const b = body(
    'v1',
    'ConfigMap',
    msg(1, str(1, 'c'), int(99, 7), [0xa5, 0x06, 1, 2, 3, 4], [0x8b, 0x06, 0x08, 0x01, 0x8c, 0x06]), // field 100 fixed32, group 97
    msg(50, str(1, 'future')),
    msg(2, str(1, 'a'), str(2, 'b')),
  );
  assert.deepEqual(decodeKubeProtobuf(b).object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c' }, data: { a: 'b' } });
});

test('repeated occurrences: messages merge, scalars take the last, repeated scalars may be packed', () => {
  const b = body(
    'v1',
    'Pod',
    msg(1, str(1, 'first')),
    msg(1, str(3, 'ns'), str(1, 'p')),
    // spec.securityContext (14).supplementalGroups (4): one unpacked, then a packed run.
    msg(2, msg(14, int(4, 1), raw(4, [2, 3, ...varint(2 ** 40)]))),
  );
  const o = decodeKubeProtobuf(b).object as Pod;
  assert.deepEqual(o.metadata, { name: 'p', namespace: 'ns' });
  assert.deepEqual(o.spec!.securityContext, { supplementalGroups: [1, 2, 3, 2 ** 40] });
  assert.deepEqual(o.spec!.containers, null);
});

test('RawExtension: embedded JSON, and embedded protobuf objects', () => {
  const inner = body('v1', 'ConfigMap', msg(1, str(1, 'inner')));
  const asJson = body('v1', 'WatchEvent', str(1, 'ADDED'), msg(2, str(1, '{"kind":"ConfigMap","apiVersion":"v1"}')));
  assert.deepEqual(decodeKubeProtobuf(asJson).object, {
    kind: 'WatchEvent',
    apiVersion: 'v1',
    type: 'ADDED',
    object: { kind: 'ConfigMap', apiVersion: 'v1' },
  });
  const asProto = body('v1', 'WatchEvent', str(1, 'MODIFIED'), msg(2, raw(1, [...inner])));
  assert.deepEqual(decodeKubeProtobuf(asProto).object.object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'inner' } });
  decodeError(
    body('v1', 'WatchEvent', msg(2, str(1, 'not json'))),
    'WatchEvent.object.raw: embedded object is neither JSON nor Kubernetes protobuf',
  );
});

test('errors name what is wrong and where', () => {
  decodeError(Buffer.from('{"kind":"Namespace"}'), /does not start with the magic bytes "k8s\\x00"/);
  decodeError(Buffer.from([0x6b, 0x38, 0x73]), /magic/);
  decodeError(body('v1', 'Frobnicator'), 'no kind "Frobnicator" is registered for version "v1"');
  decodeError(body('apps/v1', 'Namespace'), 'no kind "Namespace" is registered for version "apps/v1"');
  decodeError(Buffer.from([0x6b, 0x38, 0x73, 0x00, ...msg(2)]), "Object 'Kind' is missing in protobuf body");
  // Truncated varint inside spec.replicas.
  decodeError(body('apps/v1', 'Deployment', msg(2, [0x08, 0x80])), /^Deployment\.spec\.replicas: truncated varint/);
  // metadata claims 50 bytes, 3 follow.
  decodeError(
    body('v1', 'Namespace', [0x0a, 50, 0x0a, 0x01, 0x61]),
    /^Namespace\.metadata: length 50 past the end of the message \(3 bytes left\)/,
  );
  // replicas as a length-delimited field.
  decodeError(
    body('apps/v1', 'Deployment', msg(2, str(1, 'two'))),
    'Deployment.spec.replicas: wrong wire type bytes for int32 field 1 (want varint)',
  );
  // A container name as a varint, deep in a list.
  decodeError(
    body('v1', 'Pod', msg(2, msg(2, str(1, 'a')), msg(2, int(1, 5)))),
    'Pod.spec.containers[1].name: wrong wire type varint for string field 1 (want bytes)',
  );
  // An int64 beyond 2^53 cannot be a JSON number without losing digits.
  decodeError(body('v1', 'Namespace', msg(1, int(7, 2 ** 60))), /^Namespace\.metadata\.generation: integer 1152921504606846976/);
  decodeError(body('v1', 'Service', msg(2, msg(1, msg(4, int(1, 7))))), 'Service.spec.ports[0].targetPort: impossible IntOrString.Type 7');
  decodeError(Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0f]), /^Unknown\.typeMeta: illegal wire type 7 \(field 1\)/);
  decodeError(
    Buffer.from([0x6b, 0x38, 0x73, 0x00, ...msg(1, str(1, 'v1'), str(2, 'Secret')), ...msg(2), ...str(3, 'gzip')]),
    'Unknown: unsupported contentEncoding "gzip"',
  );
});

test('protobuf objects nested in objects stop at a depth limit', () => {
  let b = body('v1', 'ConfigMap');
  for (let i = 0; i < 200; i++) b = body('v1', 'WatchEvent', str(1, 'ADDED'), msg(2, raw(1, [...b])));
  decodeError(b, /nested too deeply/);
});
