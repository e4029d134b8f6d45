// CertificateSigningRequests with the real kubectl against a ksim apiserver:
// `kubectl certificate approve` and `deny` go through the approval
// subresource and stick; `get csr` shows the decision; the approval, status
// and main update paths each change only what kube lets them, with kube's
// messages. (Issuing certificates by a signer is not here yet: the status
// path is exercised by hand.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, kubectl as runKubectl, ok, startApiserver, type Apiserver, type ApiClient, type ToolResult } from './helpers/index.ts';
import { certificateRequestPem, selfSignedCertificatePem } from './helpers/csr.ts';

let server: Apiserver;
let kubeconfig: string;
let http: ApiClient;

before(async () => {
  server = await startApiserver();
  kubeconfig = server.kubeconfig;
  http = api(server);
});
after(() => server?.stop());

const k = (args: string[], input?: string) => runKubectl(args, { kubeconfig, input });
function fails(r: ToolResult, pattern: RegExp): void {
  assert.notEqual(r.code, 0, `kubectl should have failed:\n${r.stdout}`);
  assert.match(r.stderr, pattern);
}

const PATH = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const csrYaml = (name: string) => `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: ${name}}
spec:
  request: ${Buffer.from(certificateRequestPem(name, ['dev'])).toString('base64')}
  signerName: kubernetes.io/kube-apiserver-client
  expirationSeconds: 86400
  usages: [client auth]
`;
const getCSR = async (name: string) => (await http.request('GET', `${PATH}/${name}`)).body;
const condition = async (name: string) =>
  ok(await k(['get', 'csr', name, '--no-headers']))
    .trim()
    .split(/\s+/)
    .pop();
async function put(name: string, sub: string, edit: (csr: any) => void): Promise<{ status: number; body: any }> {
  const csr = await getCSR(name);
  edit(csr);
  return http.request('PUT', `${PATH}/${name}${sub ? `/${sub}` : ''}`, csr);
}

test('kubectl certificate approve and deny stick; get csr shows Pending, Approved, Denied', async () => {
  for (const n of ['alice', 'bob']) ok(await k(['create', '-f', '-'], csrYaml(n)));
  const table = ok(await k(['get', 'csr']));
  assert.match(table, /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION$/m);
  assert.match(table, /^alice\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+kubernetes-admin\s+24h\s+Pending$/m);

  assert.equal(ok(await k(['certificate', 'approve', 'alice'])).trim(), 'certificatesigningrequest.certificates.k8s.io/alice approved');
  assert.equal(await condition('alice'), 'Approved');
  const [approved, ...more] = (await getCSR('alice')).status.conditions;
  assert.equal(more.length, 0);
  assert.equal(approved.type, 'Approved');
  assert.equal(approved.status, 'True');
  assert.equal(approved.reason, 'KubectlApprove');
  assert.equal(approved.message, 'This CSR was approved by kubectl certificate approve.');
  assert.match(approved.lastUpdateTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.match(approved.lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'the server fills in lastTransitionTime');

  assert.equal(ok(await k(['certificate', 'deny', 'bob'])).trim(), 'certificatesigningrequest.certificates.k8s.io/bob denied');
  assert.equal(await condition('bob'), 'Denied');
  const [denied] = (await getCSR('bob')).status.conditions;
  assert.deepEqual(
    [denied.type, denied.status, denied.reason, denied.message],
    ['Denied', 'True', 'KubectlDeny', 'This CSR was denied by kubectl certificate deny.'],
  );

  fails(await k(['certificate', 'approve', 'bob']), /certificate signing request "bob" is already Denied/);
  fails(await k(['certificate', 'deny', 'alice']), /certificate signing request "alice" is already Approved/);
  // Approving again changes nothing.
  ok(await k(['certificate', 'approve', 'alice']));
  assert.deepEqual((await getCSR('alice')).status.conditions, [approved]);

  const described = ok(await k(['describe', 'csr', 'alice']));
  assert.match(described, /^Name:\s+alice$/m);
  assert.match(
    described,
    /^Requesting User:\s+kubernetes-admin$/m,
    'the server fills in who asked (ksim has no authentication: anonymous)',
  );
  assert.match(described, /^Signer:\s+kubernetes\.io\/kube-apiserver-client$/m);
  assert.match(described, /^Requested Duration:\s+24h$/m);
  assert.match(described, /^Status:\s+Approved$/m);
  assert.match(described, /^Subject:\n\s+Common Name:\s+alice\n\s+Serial Number:\s*\n\s+Organization:\s+dev$/m);
});

test('the approval subresource: Approved and Denied exclude each other, none is removed, only conditions change', async () => {
  // What `certificate approve --force` would send for a denied one, were kubectl not to refuse it first.
  const both = await put('bob', 'approval', (csr) => csr.status.conditions.push({ type: 'Approved', status: 'True', reason: 'R' }));
  assert.equal(both.status, 422);
  assert.equal(both.body.reason, 'Invalid');
  assert.equal(
    both.body.message,
    'CertificateSigningRequest.certificates.k8s.io "bob" is invalid: status.conditions: Invalid value: "Approved": Approved and Denied conditions are mutually exclusive',
  );

  const removed = await put('alice', 'approval', (csr) => (csr.status.conditions = []));
  assert.equal(removed.status, 422);
  assert.match(removed.body.message, /status\.conditions: Forbidden: updates may not remove a condition of type "Approved"$/);

  ok(await k(['create', '-f', '-'], csrYaml('carol')));
  const twice = await put(
    'carol',
    'approval',
    (csr) =>
      (csr.status.conditions = [
        { type: 'Approved', status: 'True' },
        { type: 'Approved', status: 'True' },
      ]),
  );
  assert.equal(twice.status, 422);
  assert.match(twice.body.message, /status\.conditions\[1\]\.type: Duplicate value: "Approved"/);
  const notTrue = await put('carol', 'approval', (csr) => (csr.status.conditions = [{ type: 'Denied', status: 'False' }]));
  assert.equal(notTrue.status, 422);
  assert.match(notTrue.body.message, /status\.conditions\[0\]\.status: Unsupported value: "False": supported values: "True"/);

  // Only the conditions come through: the rest of status and the spec stay as stored; labels do change.
  const res = await put('carol', 'approval', (csr) => {
    csr.status.conditions = [{ type: 'Approved', status: 'True', reason: 'ByHand', message: 'ok', lastUpdateTime: '2020-01-02T03:04:05Z' }];
    csr.status.certificate = Buffer.from(selfSignedCertificatePem('carol')).toString('base64');
    csr.spec.usages = ['server auth'];
    csr.metadata.labels = { decided: 'yes' };
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const carol = await getCSR('carol');
  assert.equal(carol.status.certificate, undefined);
  assert.deepEqual(carol.spec.usages, ['client auth']);
  assert.deepEqual(carol.metadata.labels, { decided: 'yes' });
  assert.equal(carol.status.conditions[0].lastUpdateTime, '2020-01-02T03:04:05Z', 'a given lastUpdateTime is kept');
  assert.equal(carol.status.conditions[0].reason, 'ByHand');
});

test('a PATCH of the approval subresource records the decision as a PUT does', async () => {
  ok(await k(['create', '-f', '-'], csrYaml('erin')));
  const patch = [
    { op: 'add', path: '/status/conditions', value: [{ type: 'Approved', status: 'True', reason: 'ByPatch', message: 'patched' }] },
  ];
  const res = await http.request('PATCH', `${PATH}/erin/approval`, patch, { 'content-type': 'application/json-patch+json' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const erin = await getCSR('erin');
  assert.equal(erin.status.conditions.length, 1);
  assert.equal(erin.status.conditions[0].reason, 'ByPatch');
  assert.ok(erin.status.conditions[0].lastUpdateTime, 'the server fills in lastUpdateTime');
  assert.equal(await condition('erin'), 'Approved');
  // The same rules as a PUT: a merge patch adding Denied beside Approved is refused.
  const both = await http.request(
    'PATCH',
    `${PATH}/erin/approval`,
    { status: { conditions: [erin.status.conditions[0], { type: 'Denied', status: 'True' }] } },
    { 'content-type': 'application/merge-patch+json' },
  );
  assert.equal(both.status, 422);
  assert.match(both.body.message, /Approved and Denied conditions are mutually exclusive$/);
});

test('the status subresource cannot decide; it sets the certificate once; the object itself ignores status', async () => {
  // A client cannot claim to be someone else.
  ok(
    await k(
      ['create', '-f', '-'],
      csrYaml('dave').replace('spec:\n', 'spec:\n  username: root\n  uid: "0"\n  groups: [system:masters]\n  extra: {a: [b]}\n'),
    ),
  );
  const claimed = (await getCSR('dave')).spec;
  assert.deepEqual(
    [claimed.username, claimed.uid, claimed.groups, claimed.extra],
    ['kubernetes-admin', undefined, ['kubeadm:cluster-admins', 'system:authenticated'], undefined],
  );
  const decide = await put('dave', 'status', (csr) => (csr.status.conditions = [{ type: 'Approved', status: 'True' }]));
  assert.equal(decide.status, 422);
  assert.match(decide.body.message, /status\.conditions: Forbidden: updates may not add a condition of type "Approved"$/);

  const main = await put('dave', '', (csr) => {
    csr.status = { conditions: [{ type: 'Approved', status: 'True' }] };
    csr.spec.signerName = 'example.com/other';
  });
  assert.equal(main.status, 200);
  const dave = await getCSR('dave');
  assert.deepEqual(dave.status, {});
  assert.equal(dave.spec.signerName, 'kubernetes.io/kube-apiserver-client', 'the spec cannot change');

  // What a signer does once alice is approved: a Failed-free issue, shown as Approved,Issued.
  const cert = Buffer.from(selfSignedCertificatePem('alice')).toString('base64');
  const junk = await put('alice', 'status', (csr) => (csr.status.certificate = Buffer.from('not a certificate').toString('base64')));
  assert.equal(junk.status, 422);
  assert.match(
    junk.body.message,
    /status\.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block/,
  );
  const issued = await put('alice', 'status', (csr) => (csr.status.certificate = cert));
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  assert.equal(await condition('alice'), 'Approved,Issued');
  const again = await put(
    'alice',
    'status',
    (csr) => (csr.status.certificate = Buffer.from(selfSignedCertificatePem('alice')).toString('base64')),
  );
  assert.equal(again.status, 422);
  assert.match(again.body.message, /status\.certificate: Forbidden: updates may not modify existing certificate content/);
});
