// The events an audited request writes: kube's audit.k8s.io/v1 Event shape
// and field order, the stages each level and policy keeps, the objects at
// Request and RequestResponse, the annotations, impersonation and panics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { createAuditor, microTime, requestAuditID, sourceIPs, type AuditSink } from './auditor.ts';
import { parsePolicy } from './policy.ts';
import type { AuditEvent } from './types.ts';

const T0 = Date.parse('2026-06-01T12:00:00.000Z');

function fakeRequest(
  headers: Record<string, string> = {},
  url = '/api/v1/namespaces/lab/pods?fieldManager=kubectl-create',
): IncomingMessage {
  return {
    url,
    headers: { 'user-agent': 'kubectl/v1.35.0 (linux/amd64) kubernetes/abc', ...headers },
    socket: { remoteAddress: '::ffff:127.0.0.1' },
  } as unknown as IncomingMessage;
}

function collect(policy?: string) {
  const lines: string[] = [];
  const sink: AuditSink = { write: (l) => void lines.push(l), close: async () => {} };
  let t = T0 + 0.25;
  const auditor = createAuditor({ sink, policy: policy ? parsePolicy(policy) : undefined, now: () => (t += 1.5) });
  return { auditor, lines, events: () => lines.map((l) => JSON.parse(l) as AuditEvent) };
}

const alice = { username: 'alice', groups: ['devs', 'system:authenticated'] };
const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'lab', managedFields: [{ manager: 'kubectl' }] },
  spec: {},
};

test('a create at the default level: one ResponseComplete line in kube shape and order', () => {
  const { auditor, lines } = collect();
  const rec = auditor.begin(fakeRequest({ 'audit-id': 'a-1', 'x-forwarded-for': '10.0.0.1, 10.0.0.2' }), {
    verb: 'create',
    user: alice,
    objectRef: { resource: 'pods', namespace: 'lab', apiVersion: 'v1' },
  })!;
  assert.equal(rec.level, 'Metadata');
  assert.equal(rec.wantsRequestObject, false);
  rec.setDecision('allow', 'RBAC: allowed by RoleBinding "edit/lab" of ClusterRole "edit" to User "alice"');
  rec.annotate('pod-security.kubernetes.io/enforce-policy', 'privileged:latest');
  rec.setRequestObject(pod);
  rec.setResponseObject(pod);
  rec.complete(201);
  assert.equal(lines.length, 1, 'RequestReceived is omitted by the default policy');
  assert.equal(
    lines[0],
    JSON.stringify({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID: 'a-1',
      stage: 'ResponseComplete',
      requestURI: '/api/v1/namespaces/lab/pods?fieldManager=kubectl-create',
      verb: 'create',
      user: { username: 'alice', groups: ['devs', 'system:authenticated'] },
      sourceIPs: ['10.0.0.1', '10.0.0.2', '127.0.0.1'],
      userAgent: 'kubectl/v1.35.0 (linux/amd64) kubernetes/abc',
      objectRef: { resource: 'pods', namespace: 'lab', name: 'web', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 201 },
      requestReceivedTimestamp: '2026-06-01T12:00:00.001750Z',
      stageTimestamp: '2026-06-01T12:00:00.003250Z',
      annotations: {
        'authorization.k8s.io/decision': 'allow',
        'authorization.k8s.io/reason': 'RBAC: allowed by RoleBinding "edit/lab" of ClusterRole "edit" to User "alice"',
        'pod-security.kubernetes.io/enforce-policy': 'privileged:latest',
      },
    }),
  );
});

test('a refused request: forbid and the Status fields kube keeps', () => {
  const { auditor, events } = collect();
  const rec = auditor.begin(fakeRequest(), {
    verb: 'delete',
    user: alice,
    objectRef: { resource: 'pods', namespace: 'lab', name: 'web', apiVersion: 'v1' },
  })!;
  rec.setDecision('forbid', '');
  const status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'pods "web" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "lab"',
    reason: 'Forbidden',
    details: { name: 'web', kind: 'pods' },
    code: 403,
  };
  rec.complete(403, status);
  const [ev] = events();
  assert.deepEqual(ev.responseStatus, {
    metadata: {},
    status: 'Failure',
    message: status.message,
    reason: 'Forbidden',
    details: { name: 'web', kind: 'pods' },
    code: 403,
  });
  assert.deepEqual(Object.keys(ev.responseStatus), ['metadata', 'status', 'message', 'reason', 'details', 'code']);
  assert.deepEqual(ev.annotations, { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' });
});

const REQUEST_RESPONSE = `apiVersion: audit.k8s.io/v1
kind: Policy
omitManagedFields: true
rules:
  - level: None
    nonResourceURLs: ["/healthz"]
  - level: Request
    verbs: [watch]
  - level: RequestResponse
`;

test('RequestResponse: RequestReceived first, the objects without managedFields, unchanged originals', () => {
  const { auditor, events } = collect(REQUEST_RESPONSE);
  const rec = auditor.begin(fakeRequest(), {
    verb: 'create',
    user: alice,
    objectRef: { resource: 'pods', namespace: 'lab', apiVersion: 'v1' },
  })!;
  assert.equal(rec.wantsRequestObject, true);
  assert.equal(rec.wantsResponseObject, true);
  rec.setRequestObject(pod);
  rec.setResponseObject({ ...pod, metadata: { ...pod.metadata, uid: 'u-1', resourceVersion: '9' } });
  rec.complete(201);
  const [received, complete] = events();
  assert.equal(received.stage, 'RequestReceived');
  assert.equal(received.responseStatus, undefined);
  assert.equal(received.requestObject, undefined, 'the body is read after the RequestReceived event');
  assert.equal(complete.stage, 'ResponseComplete');
  assert.deepEqual(complete.requestObject, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'lab' }, spec: {} });
  assert.deepEqual((complete.responseObject as typeof pod).metadata, { name: 'web', namespace: 'lab', uid: 'u-1', resourceVersion: '9' });
  assert.equal(complete.auditID, received.auditID);
  assert.equal(pod.metadata.managedFields.length, 1);
});

test('a watch: ResponseStarted when it starts answering, ResponseComplete when it ends', () => {
  const { auditor, events } = collect(REQUEST_RESPONSE);
  const rec = auditor.begin(fakeRequest({}, '/api/v1/pods?watch=true'), {
    verb: 'watch',
    user: alice,
    objectRef: { resource: 'pods', apiVersion: 'v1' },
  })!;
  assert.equal(rec.wantsResponseObject, false);
  rec.responseStarted();
  rec.responseStarted();
  rec.complete(200);
  rec.complete(200);
  assert.deepEqual(
    events().map((e) => [e.stage, e.responseStatus?.code]),
    [
      ['RequestReceived', undefined],
      ['ResponseStarted', 200],
      ['ResponseComplete', 200],
    ],
  );
});

test('level None writes nothing; a non-resource request has no objectRef', () => {
  const { auditor, events } = collect(REQUEST_RESPONSE);
  assert.equal(auditor.begin(fakeRequest({}, '/healthz'), { verb: 'get', user: alice }), undefined);
  auditor.begin(fakeRequest({}, '/version'), { verb: 'get', user: alice })!.complete(200);
  const evs = events();
  assert.equal(evs.length, 2);
  assert.equal(evs[0].requestURI, '/version');
  assert.equal(evs[0].objectRef, undefined);
});

test('impersonation: user stays the caller, impersonatedUser is whom it acts as', () => {
  const { auditor, events } = collect();
  const admin = { username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins', 'system:authenticated'] };
  const rec = auditor.begin(fakeRequest(), {
    verb: 'get',
    user: admin,
    objectRef: { resource: 'pods', namespace: 'lab', name: 'web', apiVersion: 'v1' },
  })!;
  rec.setImpersonatedUser({
    username: 'system:serviceaccount:lab:reader',
    uid: 'u-2',
    groups: ['system:serviceaccounts', 'system:authenticated'],
  });
  rec.complete(200);
  const [ev] = events();
  assert.equal(ev.user.username, 'kubernetes-admin');
  assert.deepEqual(ev.impersonatedUser, {
    username: 'system:serviceaccount:lab:reader',
    uid: 'u-2',
    groups: ['system:serviceaccounts', 'system:authenticated'],
  });
});

test('a failed authentication is recorded with an empty user; a panic with kube 500', () => {
  const { auditor, lines, events } = collect();
  auditor.begin(fakeRequest(), { verb: 'list', objectRef: { resource: 'pods', apiVersion: 'v1' } })!.complete(401, {
    status: 'Failure',
    message: 'Unauthorized',
    reason: 'Unauthorized',
  });
  assert.match(lines[0], /"user":\{\}/);
  auditor.begin(fakeRequest(), { verb: 'get', user: alice })!.panic(new Error('boom'));
  const panic = events()[1];
  assert.equal(panic.stage, 'Panic');
  assert.deepEqual(panic.responseStatus, {
    metadata: {},
    status: 'Failure',
    message: "APIServer panic'd: boom",
    reason: 'InternalError',
    code: 500,
  });
});

test('audit IDs, source IPs and microsecond times', () => {
  assert.equal(requestAuditID(fakeRequest({ 'audit-id': 'mine' })), 'mine');
  assert.match(requestAuditID(fakeRequest()), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.deepEqual(sourceIPs(fakeRequest({ 'x-forwarded-for': '127.0.0.1, nonsense', 'x-real-ip': '10.1.1.1' })), [
    '127.0.0.1',
    '10.1.1.1',
  ]);
  assert.equal(microTime(T0), '2026-06-01T12:00:00.000000Z');
  assert.equal(microTime(T0 + 123.4567), '2026-06-01T12:00:00.123456Z');
});

test('a Status handed over before the answer ends is reported by a complete() that knows only the code', () => {
  const { auditor, events } = collect();
  const notFound = {
    kind: 'Status',
    status: 'Failure',
    message: 'pods "x" not found',
    reason: 'NotFound',
    details: { name: 'x', kind: 'pods' },
    code: 404,
  };
  const a = auditor.begin(fakeRequest(), {
    verb: 'get',
    user: alice,
    objectRef: { resource: 'pods', namespace: 'lab', name: 'x', apiVersion: 'v1' },
  })!;
  a.setResponseStatus(notFound);
  a.complete(404);
  const b = auditor.begin(fakeRequest(), {
    verb: 'get',
    user: alice,
    objectRef: { resource: 'pods', namespace: 'lab', name: 'x', apiVersion: 'v1' },
  })!;
  b.setResponseObject(notFound);
  b.complete(404);
  for (const ev of events()) {
    assert.deepEqual(ev.responseStatus, {
      metadata: {},
      status: 'Failure',
      message: 'pods "x" not found',
      reason: 'NotFound',
      details: { name: 'x', kind: 'pods' },
      code: 404,
    });
    assert.equal(ev.responseObject, undefined, 'Metadata level: no body');
  }
});
