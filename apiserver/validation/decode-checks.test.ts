// Tables of request bodies and kube's exact answers: strict decoding errors
// (unknown and duplicate fields) in each fieldValidation mode, the JSON
// decoder's type and format errors, and the object kube would keep. The
// decoder rows were checked against sigs.k8s.io/json with mirror structs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusError } from '../../shared/api/errors.ts';
import type { GroupVersionKind } from '../../shared/api/schema/index.ts';
import { decodeChecks, fieldValidationError, fieldValidationMode, warningHeaderValue, type FieldValidationMode } from './index.ts';

const DEPLOYMENT: GroupVersionKind = { group: 'apps', version: 'v1', kind: 'Deployment' };
const SECRET: GroupVersionKind = { group: '', version: 'v1', kind: 'Secret' };
const CONFIGMAP: GroupVersionKind = { group: '', version: 'v1', kind: 'ConfigMap' };
const SERVICE: GroupVersionKind = { group: '', version: 'v1', kind: 'Service' };
const LEASE: GroupVersionKind = { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' };
const REVISION: GroupVersionKind = { group: 'apps', version: 'v1', kind: 'ControllerRevision' };

const HANDLED = 'Deployment in version "v1" cannot be handled as a Deployment: ';

/** Runs decodeChecks on a body text; returns the result or the StatusError. */
function run(kind: GroupVersionKind, body: string, mode: FieldValidationMode = 'Strict'): ReturnType<typeof decodeChecks> | StatusError {
  try {
    return decodeChecks(kind, body, JSON.parse(body), mode);
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
}

function expectError(kind: GroupVersionKind, body: string, message: string, mode: FieldValidationMode = 'Strict'): void {
  const got = run(kind, body, mode);
  assert.ok(got instanceof StatusError, `expected an error for ${body}, got ${JSON.stringify(got)}`);
  assert.equal(got.message, message, body);
  assert.equal(got.code, 400);
  assert.equal(got.reason, 'BadRequest');
  assert.equal(got.details, undefined);
}

function expectOk(
  kind: GroupVersionKind,
  body: string,
  object: unknown,
  warnings: string[] = [],
  mode: FieldValidationMode = 'Strict',
): void {
  const got = run(kind, body, mode);
  assert.ok(!(got instanceof StatusError), `unexpected error for ${body}: ${(got as StatusError).message}`);
  assert.deepEqual(got.object, object, body);
  assert.deepEqual(got.warnings, warnings, body);
}

test('unknown and duplicate fields under Strict', () => {
  const cases: [string, string][] = [
    [
      '{"spec":{"foo":1,"template":{"spec":{"bar":2}}}}',
      'strict decoding error: unknown field "spec.foo", unknown field "spec.template.spec.bar"',
    ],
    [
      '{"spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"b","imagePullPolcy":"Always"}]}}}}',
      'strict decoding error: unknown field "spec.template.spec.containers[1].imagePullPolcy"',
    ],
    // Document order, duplicates in structs and in maps.
    [
      '{"foo":1,"metadata":{"name":"a","name":"b","labels":{"x":"1","x":"2"}}}',
      'strict decoding error: unknown field "foo", duplicate field "metadata.name", duplicate field "metadata.labels.x"',
    ],
    [
      '{"kind":"Deployment","kind":"Deployment","spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"b","name":"c"}]}}}}',
      'strict decoding error: duplicate field "kind", duplicate field "spec.template.spec.containers[1].name"',
    ],
    // An unknown field is reported once, and nothing inside it is looked at.
    ['{"foo":1,"foo":2,"bar":{"baz":1,"baz":2}}', 'strict decoding error: unknown field "foo", unknown field "bar"'],
    // Keys match exactly (case-sensitive) after unescaping.
    ['{"Metadata":{},"sp\\u0065c":{"replicas":1}}', 'strict decoding error: unknown field "Metadata"'],
    [
      '{"metadata":{"a\\"b":1,"labels":{"q":"1","\\u0071":"2"}}}',
      'strict decoding error: unknown field "metadata.a\\"b", duplicate field "metadata.labels.q"',
    ],
    [
      '{"spec":{"template":{"spec":{"nodeSelector":{"a":"b","a":"c"}}}}}',
      'strict decoding error: duplicate field "spec.template.spec.nodeSelector.a"',
    ],
    ['{"status":{"conditions":[{"type":"A","reasonn":"x"}]}}', 'strict decoding error: unknown field "status.conditions[0].reasonn"'],
  ];
  for (const [body, message] of cases) expectError(DEPLOYMENT, body, HANDLED + message);
});

test('strict errors stop at 100', () => {
  const body = JSON.stringify(Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`f${i}`, i])));
  const got = run(DEPLOYMENT, body, 'Warn');
  assert.ok(!(got instanceof StatusError));
  assert.equal(got.warnings.length, 100);
  assert.equal(got.warnings[99], 'unknown field "f99"');
  assert.deepEqual(got.object, {});
});

test('known fields of every kind: maps take any key, embedded objects anything', () => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      labels: { 'app.kubernetes.io/name': 'web', anything: 'goes' },
      annotations: { 'x/y': 'z' },
      managedFields: [
        {
          manager: 'kubectl',
          operation: 'Apply',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': { 'f:replicas': {}, '.': {} } },
          time: '2024-01-02T03:04:05Z',
        },
      ],
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx',
              ports: [{ containerPort: 80, protocol: 'TCP' }],
              resources: { limits: { cpu: '500m', memory: 1073741824 }, requests: { cpu: 0.25 } },
              livenessProbe: { httpGet: { port: 'http', path: '/' } },
            },
          ],
        },
      },
    },
    status: { replicas: 2, conditions: [{ type: 'Available', status: 'True', lastUpdateTime: '2024-01-02T03:04:05Z' }] },
  };
  expectOk(DEPLOYMENT, JSON.stringify(deployment), structuredClone(deployment));
  // A RawExtension holds any JSON, duplicates and all.
  expectOk(REVISION, '{"revision":1,"data":{"spec":{"x":1,"x":2},"whatever":[1]}}', {
    revision: 1,
    data: { spec: { x: 2 }, whatever: [1] },
  });
  // ConfigMap data and binaryData are maps.
  expectOk(CONFIGMAP, '{"data":{"a.txt":"1","b":""},"binaryData":{"c":"aGk="}}', {
    data: { 'a.txt': '1', b: '' },
    binaryData: { c: 'aGk=' },
  });
});

test('each fieldValidation mode', () => {
  const body = '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x","foo":1},"spec":{"replicas":1,"replicas":2,"bar":{}}}';
  const pruned = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { replicas: 2 } };
  const texts = ['unknown field "metadata.foo"', 'duplicate field "spec.replicas"', 'unknown field "spec.bar"'];
  expectError(DEPLOYMENT, body, `${HANDLED}strict decoding error: ${texts.join(', ')}`, 'Strict');
  expectOk(DEPLOYMENT, body, pruned, texts, 'Warn');
  expectOk(DEPLOYMENT, body, pruned, [], 'Ignore');
  // A decoding error is an error in every mode, and strict errors then go unreported.
  for (const mode of ['Strict', 'Warn', 'Ignore'] as const) {
    expectError(
      DEPLOYMENT,
      '{"spec":{"foo":1,"replicas":"x"}}',
      `${HANDLED}json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`,
      mode,
    );
  }
});

test('type errors of the JSON decoder', () => {
  const containers = (c: string): string => `{"spec":{"template":{"spec":{"containers":[${c}]}}}}`;
  const cases: [string, string][] = [
    ['{"spec":{"replicas":"3"}}', 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'],
    ['{"spec":{"replicas":1.5}}', 'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32'],
    ['{"spec":{"replicas":1e3}}', 'json: cannot unmarshal number 1e3 into Go struct field DeploymentSpec.spec.replicas of type int32'],
    ['{"spec":{"replicas":1.0}}', 'json: cannot unmarshal number 1.0 into Go struct field DeploymentSpec.spec.replicas of type int32'],
    [
      '{"spec":{"replicas":3000000000}}',
      'json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32',
    ],
    ['{"spec":{"replicas":true}}', 'json: cannot unmarshal bool into Go struct field DeploymentSpec.spec.replicas of type int32'],
    ['{"spec":{"replicas":{}}}', 'json: cannot unmarshal object into Go struct field DeploymentSpec.spec.replicas of type int32'],
    ['{"spec":{"paused":"true"}}', 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool'],
    ['{"spec":[]}', 'json: cannot unmarshal array into Go struct field Deployment.spec of type v1.DeploymentSpec'],
    ['{"spec":"x"}', 'json: cannot unmarshal string into Go struct field Deployment.spec of type v1.DeploymentSpec'],
    ['{"spec":1}', 'json: cannot unmarshal number into Go struct field Deployment.spec of type v1.DeploymentSpec'],
    [
      '{"kind":"Deployment","metadata":{"name":true}}',
      'json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.name of type string',
    ],
    ['{"metadata":{"name":5}}', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string'],
    ['{"metadata":{"uid":5}}', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.uid of type types.UID'],
    [
      '{"metadata":{"generation":9223372036854775808}}',
      'json: cannot unmarshal number 9223372036854775808 into Go struct field ObjectMeta.metadata.generation of type int64',
    ],
    [
      '{"metadata":{"labels":[]}}',
      'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string',
    ],
    ['{"metadata":{"labels":{"a":1}}}', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string'],
    [
      '{"metadata":{"finalizers":"x"}}',
      'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string',
    ],
    ['{"metadata":{"finalizers":[1]}}', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.finalizers of type string'],
    [containers(''), ''],
    [
      '{"spec":{"template":{"spec":{"containers":{}}}}}',
      'json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container',
    ],
    [containers('"x"'), 'json: cannot unmarshal string into Go struct field PodSpec.spec.template.spec.containers of type v1.Container'],
    [
      containers('{"name":"a","imagePullPolicy":1}'),
      'json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.imagePullPolicy of type v1.PullPolicy',
    ],
    [
      containers('{"name":"a","ports":[{"containerPort":"80"}]}'),
      'json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32',
    ],
    [
      containers('{"name":"a","resources":{"limits":[]}}'),
      'json: cannot unmarshal array into Go struct field ResourceRequirements.spec.template.spec.containers.resources.limits of type v1.ResourceList',
    ],
    [
      containers('{"name":"a","securityContext":{"capabilities":{"add":"NET_ADMIN"}}}'),
      'json: cannot unmarshal string into Go struct field Capabilities.spec.template.spec.containers.securityContext.capabilities.add of type []v1.Capability',
    ],
    // IntOrString decodes itself; its int32 error comes back with the outer context.
    [
      containers('{"name":"a","livenessProbe":{"httpGet":{"port":true}}}'),
      'json: cannot unmarshal bool into Go struct field HTTPGetAction.spec.template.spec.containers.livenessProbe.httpGet.port of type int32',
    ],
    [
      containers('{"name":"a","livenessProbe":{"httpGet":{"port":1.5}}}'),
      'json: cannot unmarshal number 1.5 into Go struct field HTTPGetAction.spec.template.spec.containers.livenessProbe.httpGet.port of type int32',
    ],
    [
      containers('{"name":"a","livenessProbe":{"httpGet":{"port":{}}}}'),
      'json: cannot unmarshal object into Go struct field HTTPGetAction.spec.template.spec.containers.livenessProbe.httpGet.port of type int32',
    ],
    [
      containers('{"name":"a","livenessProbe":{"httpGet":{"port":[1]}}}'),
      'json: cannot unmarshal array into Go struct field HTTPGetAction.spec.template.spec.containers.livenessProbe.httpGet.port of type int32',
    ],
    [
      containers('{"name":"a","livenessProbe":{"httpGet":{"port":99999999999}}}'),
      'json: cannot unmarshal number 99999999999 into Go struct field HTTPGetAction.spec.template.spec.containers.livenessProbe.httpGet.port of type int32',
    ],
    [
      '{"spec":{"strategy":{"rollingUpdate":{"maxSurge":true}}}}',
      'json: cannot unmarshal bool into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32',
    ],
    // Quantity decodes itself: its errors carry no context.
    [
      containers('{"name":"a","resources":{"limits":{"cpu":"1x"}}}'),
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ],
    [
      containers('{"name":"a","resources":{"limits":{"cpu":true}}}'),
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ],
    [containers('{"name":"a","resources":{"requests":{"memory":"1mm"}}}'), "unable to parse quantity's suffix"],
    // Time: json.Unmarshal into a string (with the outer context), then time.Parse.
    [
      '{"metadata":{"creationTimestamp":5}}',
      'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string',
    ],
    [
      '{"metadata":{"creationTimestamp":{}}}',
      'json: cannot unmarshal object into Go struct field ObjectMeta.metadata.creationTimestamp of type string',
    ],
    ['{"metadata":{"creationTimestamp":"2020-13-01T00:00:00Z"}}', 'parsing time "2020-13-01T00:00:00Z": month out of range'],
    ['{"metadata":{"creationTimestamp":"2020-01-01"}}', 'parsing time "2020-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'],
    // The first ordinary error is kept, but an error from a type's own decoder ends decoding and wins.
    [
      '{"spec":{"replicas":"x","paused":"y"}}',
      'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    ],
    [
      '{"spec":{"replicas":"x"},"metadata":{"creationTimestamp":"bad"}}',
      'parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"',
    ],
  ];
  for (const [body, message] of cases) {
    if (message) expectError(DEPLOYMENT, body, HANDLED + message);
    else assert.ok(!(run(DEPLOYMENT, body) instanceof StatusError), body);
  }
});

test('other kinds: Secret bytes, Service ports, Lease micro-times', () => {
  const secret = 'Secret in version "v1" cannot be handled as a Secret: ';
  expectError(SECRET, '{"data":{"a":"aGVsbG8"}}', secret + 'illegal base64 data at input byte 4');
  expectError(SECRET, '{"data":{"a":"ab!d","b":"x"}}', secret + 'illegal base64 data at input byte 2');
  expectError(SECRET, '{"data":{"a":5}}', secret + 'json: cannot unmarshal number into Go struct field Secret.data of type []uint8');
  expectError(SECRET, '{"data":{"a":[300]}}', secret + 'json: cannot unmarshal number 300 into Go struct field Secret.data of type uint8');
  expectError(SECRET, '{"type":1}', secret + 'json: cannot unmarshal number into Go struct field Secret.type of type v1.SecretType');
  expectError(
    CONFIGMAP,
    '{"binaryData":{"a":"%%%"}}',
    'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 0',
  );
  // kube writes []byte back as canonical base64, arrays of bytes included.
  expectOk(SECRET, '{"data":{"a":[104,105],"b":"aGVs\\nbG8=","c":null,"d":"aGk="},"stringData":{"e":"plain"}}', {
    data: { a: 'aGk=', b: 'aGVsbG8=', c: null, d: 'aGk=' },
    stringData: { e: 'plain' },
  });

  const service = 'Service in version "v1" cannot be handled as a Service: ';
  expectOk(SERVICE, '{"spec":{"ports":[{"port":80,"targetPort":"http"},{"port":81,"targetPort":8081}]}}', {
    spec: {
      ports: [
        { port: 80, targetPort: 'http' },
        { port: 81, targetPort: 8081 },
      ],
    },
  });
  expectError(
    SERVICE,
    '{"spec":{"ports":[{"port":80,"targetPort":false}]}}',
    service + 'json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32',
  );
  expectError(
    SERVICE,
    '{"spec":{"ports":[{"port":"80"}]}}',
    service + 'json: cannot unmarshal string into Go struct field ServicePort.spec.ports.port of type int32',
  );
  expectError(
    SERVICE,
    '{"spec":{"type":["x"]}}',
    service + 'json: cannot unmarshal array into Go struct field ServiceSpec.spec.type of type v1.ServiceType',
  );

  const lease = 'Lease in version "v1" cannot be handled as a Lease: ';
  expectError(
    LEASE,
    '{"spec":{"renewTime":"2024-01-02T03:04:05Z"}}',
    lease + 'parsing time "2024-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
  );
  expectOk(LEASE, '{"spec":{"holderIdentity":"a","renewTime":"2024-01-02T05:04:05.123456+02:00","leaseDurationSeconds":15}}', {
    spec: { holderIdentity: 'a', renewTime: '2024-01-02T03:04:05.123456Z', leaseDurationSeconds: 15 },
  });
});

test('null means unset, and Go zero values in maps and lists', () => {
  expectOk(
    DEPLOYMENT,
    '{"metadata":{"name":"a","labels":{"x":null},"deletionTimestamp":null},"spec":{"replicas":null,"selector":null,"template":{"spec":{"containers":[{"name":"c","args":["x",null],"ports":null}]}}}}',
    { metadata: { name: 'a', labels: { x: '' } }, spec: { template: { spec: { containers: [{ name: 'c', args: ['x', ''] }] } } } },
  );
  // Times come back in UTC, without fractions for Time; Go's zero time is no time.
  expectOk(DEPLOYMENT, '{"metadata":{"creationTimestamp":"2024-01-02T04:04:05.999+01:00"}}', {
    metadata: { creationTimestamp: '2024-01-02T03:04:05Z' },
  });
  expectOk(DEPLOYMENT, '{"metadata":{"creationTimestamp":"0001-01-01T00:00:00Z"}}', { metadata: {} });
  // With duplicate keys the last value is the one kept and rewritten.
  expectOk(
    DEPLOYMENT,
    '{"metadata":{"labels":{"a":null,"a":"x"},"creationTimestamp":"2024-01-02T04:04:05+01:00","creationTimestamp":"2025-01-01T00:00:00Z"}}',
    {
      metadata: { labels: { a: 'x' }, creationTimestamp: '2025-01-01T00:00:00Z' },
    },
    ['duplicate field "metadata.labels.a"', 'duplicate field "metadata.creationTimestamp"'],
    'Warn',
  );
});

test('apiVersion and kind are read first', () => {
  const unrecognized = 'the object provided is unrecognized (must be of type Deployment): ';
  expectError(
    DEPLOYMENT,
    '{"apiVersion":"apps/v1","kind":5}',
    unrecognized +
      `couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({"apiVersion":"apps/v1","kind" ...)`,
  );
  expectError(
    DEPLOYMENT,
    '{"apiVersion":{}}',
    unrecognized +
      `couldn't get version/kind; json parse error: json: cannot unmarshal object into Go struct field .apiVersion of type string ({"apiVersion":{}})`,
  );
  expectError(
    DEPLOYMENT,
    '{"apiVersion":"a/b/c","kind":"Deployment"}',
    unrecognized + 'unexpected GroupVersion string: a/b/c ({"apiVersion":"a/b/c","kind":" ...)',
  );
  expectError(
    DEPLOYMENT,
    '[1,2]',
    unrecognized +
      `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b312c325d)`,
  );
  // The kind and version named are the body's, defaulted from the request.
  expectError(
    DEPLOYMENT,
    '{"apiVersion":"apps/v2","kind":"Deployment","spec":{"replicas":"1"}}',
    'Deployment in version "v2" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
  );
  expectError(
    DEPLOYMENT,
    '{"spec":{"replicas":"1"}}',
    HANDLED + 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
  );
});

test('raw text as a Buffer, and bodies that were not JSON', () => {
  const body = '{"metadata":{"name":"a","bogus":1},"spec":{"replicas":2}}';
  const fromBuffer = decodeChecks(DEPLOYMENT, Buffer.from(body), JSON.parse(body), 'Warn');
  assert.deepEqual(fromBuffer, {
    object: { metadata: { name: 'a' }, spec: { replicas: 2 } },
    warnings: ['unknown field "metadata.bogus"'],
  });
  // A YAML body: no raw JSON, so the parsed object itself is checked.
  const fromObject = decodeChecks(DEPLOYMENT, undefined, { metadata: { name: 'a', bogus: 1 }, spec: { replicas: 2 } }, 'Warn');
  assert.deepEqual(fromObject, fromBuffer);
  // Raw text that does not match the object falls back to the object.
  const mismatch = decodeChecks(DEPLOYMENT, '{"metadata":', { metadata: { name: 'a', bogus: 1 } }, 'Warn');
  assert.deepEqual(mismatch, { object: { metadata: { name: 'a' } }, warnings: ['unknown field "metadata.bogus"'] });
  // A kind the schema does not know passes untouched.
  const crd = { spec: { anything: true } };
  assert.deepEqual(decodeChecks({ group: 'example.com', version: 'v1', kind: 'Widget' }, JSON.stringify(crd), crd, 'Strict'), {
    object: crd,
    warnings: [],
  });
});

test('the fieldValidation parameter and Warning headers', () => {
  assert.equal(fieldValidationMode(undefined), 'Warn');
  assert.equal(fieldValidationMode(''), 'Warn');
  assert.equal(fieldValidationMode('Strict'), 'Strict');
  assert.equal(fieldValidationMode('Ignore'), 'Ignore');
  assert.equal(fieldValidationError('Strict'), undefined);
  assert.equal(fieldValidationError(''), undefined);
  assert.deepEqual(fieldValidationError('strict'), {
    type: 'FieldValueNotSupported',
    field: 'fieldValidation',
    message: 'fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
  });
  assert.equal(warningHeaderValue('unknown field "spec.foo"'), '299 - "unknown field \\"spec.foo\\""');
  assert.equal(warningHeaderValue('bell\x07'), undefined);
});
