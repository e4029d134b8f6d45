// The path of one request, end to end, with the real kubectl, openssl and
// curl against `ksim up`: TLS and the admin kubeconfig, 401 for missing and
// bad credentials, a ServiceAccount token that can do exactly what its Role
// allows (and nothing once the ServiceAccount is gone), `kubectl auth can-i`
// and `whoami`, the "user from a CSR" lab, RBAC escalation prevention,
// ResourceQuota, LimitRange and PodSecurity refusals, a Pod's own token,
// each component under its own identity in the audit log, and a node that
// cannot touch another node's Pods.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { loadKubeconfig } from '../shared/client/kubeconfig.ts';
import { api, kubectl, ok, startCluster, tempDir, until, writeKubeconfig, type Cluster, type ToolResult } from './helpers/index.ts';

let cluster: Cluster;
let work: string;

before(async () => {
  cluster = await startCluster({ nodes: 2, speed: 10 });
  work = await tempDir('request-path');
  ok(await cluster.k(['create', 'namespace', 'lab']));
});
after(() => cluster?.stop());

const k = (args: string[], input?: string) => cluster.k(args, input);

/** A kubeconfig with the cluster CA and only `user` credentials (a token, or a client certificate). */
async function kubeconfigFor(name: string, user: { token?: string; certPem?: string; keyPem?: string }): Promise<string> {
  const file = join(work, `${name}.kubeconfig`);
  await writeKubeconfig(file, cluster.url, { caData: cluster.tls!.ca, token: user.token, certData: user.certPem, keyData: user.keyPem });
  return file;
}

function refused(r: ToolResult, pattern: RegExp): void {
  assert.notEqual(r.code, 0, `kubectl should have been refused:\n${r.stdout}`);
  assert.match(r.stderr, pattern);
}

function curl(args: string[]): { code: number; out: string } {
  const r = spawnSync('curl', ['-sS', '--max-time', '10', ...args], { encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout + r.stderr };
}

test('the admin kubeconfig is HTTPS with the CA and a kubernetes-admin client certificate; curl verifies the server only with the CA', () => {
  const doc = YAML.parse(readFileSync(cluster.kubeconfig, 'utf8'));
  const server: string = doc.clusters[0].cluster.server;
  assert.match(server, /^https:\/\/127\.0\.0\.1:\d+$/);
  const caPem = Buffer.from(doc.clusters[0].cluster['certificate-authority-data'], 'base64').toString();
  const certPem = Buffer.from(doc.users[0].user['client-certificate-data'], 'base64').toString();
  const subject = execFileSync('openssl', ['x509', '-noout', '-subject', '-nameopt', 'RFC2253'], { input: certPem, encoding: 'utf8' });
  assert.match(subject, /CN=kubernetes-admin/);
  assert.match(subject, /O=kubeadm:cluster-admins/);
  const caFile = join(work, 'ca.crt');
  writeFileSync(caFile, caPem);
  const verified = curl(['--cacert', caFile, `${server}/readyz`]);
  assert.equal(verified.code, 0, verified.out);
  assert.equal(verified.out, 'ok');
  const unverified = curl([`${server}/readyz`]);
  assert.equal(unverified.code, 60, `curl without the CA must fail to verify the server: ${unverified.out}`);
});

test('anonymous and bad-token requests get 401 Status bodies; health checks stay public', async () => {
  const anonymous = api(cluster, { credentials: 'anonymous' });
  for (const path of ['/api/v1/namespaces', '/apis', '/metrics']) {
    const r = await anonymous.request('GET', path);
    assert.equal(r.status, 401, path);
    assert.deepEqual(r.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      code: 401,
      reason: 'Unauthorized',
    });
  }
  assert.equal((await anonymous.request('GET', '/livez')).status, 200);
  assert.equal((await anonymous.request('GET', '/version')).status, 200);
  const forged = api(cluster, { credentials: { token: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl' } });
  assert.equal((await forged.request('GET', '/api/v1/namespaces')).status, 401);
  assert.equal((await forged.request('GET', '/livez')).status, 401, 'bad credentials are refused even on a public path');
});

test('a ServiceAccount token does exactly what its Role allows, and nothing once the ServiceAccount is deleted', async () => {
  ok(await k(['create', 'serviceaccount', 'reader', '-n', 'lab']));
  ok(await k(['create', 'role', 'pod-reader', '-n', 'lab', '--verb=get,list', '--resource=pods']));
  ok(await k(['create', 'rolebinding', 'reader', '-n', 'lab', '--role=pod-reader', '--serviceaccount=lab:reader']));
  const token = ok(await k(['create', 'token', 'reader', '-n', 'lab', '--duration=10m'])).trim();
  const kc = await kubeconfigFor('reader', { token });
  const as = (args: string[]) => kubectl(args, { kubeconfig: kc });
  ok(await as(['get', 'pods', '-n', 'lab']));
  assert.match(ok(await as(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])), /^system:serviceaccount:lab:reader$/);
  refused(
    await as(['delete', 'pod', 'any', '-n', 'lab']),
    /pods "any" is forbidden: User "system:serviceaccount:lab:reader" cannot delete resource "pods" in API group "" in the namespace "lab"/,
  );
  refused(await as(['get', 'pods', '-n', 'default']), /cannot list resource "pods" in API group "" in the namespace "default"/);
  refused(await as(['get', 'secrets', '-n', 'lab']), /cannot list resource "secrets"/);
  ok(await k(['delete', 'serviceaccount', 'reader', '-n', 'lab']));
  refused(await as(['get', 'pods', '-n', 'lab']), /Unauthorized|must be logged in/);
});

test('a long-lived token Secret is filled by the tokens controller, authenticates, and goes with its ServiceAccount', async () => {
  ok(await k(['create', 'serviceaccount', 'robot', '-n', 'lab']));
  const manifest = JSON.stringify({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'robot-token', namespace: 'lab', annotations: { 'kubernetes.io/service-account.name': 'robot' } },
    type: 'kubernetes.io/service-account-token',
  });
  ok(await k(['apply', '-f', '-'], manifest));
  const field = (f: string) => k(['get', 'secret', 'robot-token', '-n', 'lab', '-o', `jsonpath={.data.${f}}`]);
  await until(async () => ok(await field('token')) !== '', 'the token Secret to be filled', 20_000);
  const token = Buffer.from(ok(await field('token')), 'base64').toString();
  assert.equal(Buffer.from(ok(await field('namespace')), 'base64').toString(), 'lab');
  assert.match(Buffer.from(ok(await field('ca\\.crt')), 'base64').toString(), /^-----BEGIN CERTIFICATE-----/);
  const as = async (args: string[]) => kubectl(args, { kubeconfig: await kubeconfigFor('robot', { token }) });
  assert.equal(ok(await as(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])), 'system:serviceaccount:lab:robot');
  ok(await k(['delete', 'serviceaccount', 'robot', '-n', 'lab']));
  await until(
    async () => /NotFound/.test((await k(['get', 'secret', 'robot-token', '-n', 'lab'])).stderr),
    'the token Secret to go with its ServiceAccount',
    20_000,
  );
  refused(await as(['get', 'pods', '-n', 'lab']), /Unauthorized|must be logged in/);
});

test('kubectl auth can-i answers as kube would, with --as and --list', async () => {
  ok(await k(['create', 'serviceaccount', 'viewer', '-n', 'lab']));
  ok(await k(['create', 'role', 'cm-reader', '-n', 'lab', '--verb=get', '--resource=configmaps', '--resource-name=settings']));
  ok(await k(['create', 'rolebinding', 'viewer', '-n', 'lab', '--role=cm-reader', '--serviceaccount=lab:viewer']));
  const sa = 'system:serviceaccount:lab:viewer';
  const canI = (args: string[]) => k(['auth', 'can-i', ...args, '--as', sa, '-n', 'lab']);
  assert.equal((await canI(['get', 'configmaps/settings'])).stdout.trim(), 'yes');
  const other = await canI(['get', 'configmaps/other']);
  assert.equal(other.stdout.trim(), 'no');
  assert.equal(other.code, 1);
  assert.equal((await canI(['create', 'configmaps'])).stdout.trim(), 'no');
  const list = ok(await canI(['--list']));
  assert.match(list, /configmaps\s+\[\]\s+\[settings\]\s+\[get\]/);
  assert.match(list, /selfsubjectreviews\.authentication\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/);
  assert.equal(ok(await k(['auth', 'can-i', '*', '*'])).trim(), 'yes', 'the admin is a cluster admin');
});

test('a ClusterRoleBinding to view gives read but not write', async () => {
  ok(await k(['create', 'clusterrolebinding', 'carol-view', '--clusterrole=view', '--user=carol']));
  // The view role is aggregated by the controller-manager: wait for its rules.
  await until(
    async () => (await k(['auth', 'can-i', 'list', 'pods', '--as', 'carol', '-n', 'lab'])).stdout.trim() === 'yes',
    'view to allow listing pods',
    30_000,
  );
  ok(await k(['get', 'deployments,services,configmaps', '-n', 'lab', '--as', 'carol']));
  refused(
    await k(['create', 'configmap', 'x', '-n', 'lab', '--as', 'carol']),
    /User "carol" cannot create resource "configmaps" in API group "" in the namespace "lab"/,
  );
  refused(await k(['get', 'secrets', '-n', 'lab', '--as', 'carol']), /cannot list resource "secrets"/);
});

test('the CSR lab: openssl key and request, approve, the signer issues, the certificate is a working user', async () => {
  const keyFile = join(work, 'alice.key');
  execFileSync('openssl', ['genrsa', '-out', keyFile, '2048'], { stdio: 'ignore' });
  const csrPem = execFileSync('openssl', ['req', '-new', '-key', keyFile, '-subj', '/CN=alice/O=devs'], { encoding: 'utf8' });
  const manifest = `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: alice}
spec:
  request: ${Buffer.from(csrPem).toString('base64')}
  signerName: kubernetes.io/kube-apiserver-client
  expirationSeconds: 86400
  usages: [client auth]
`;
  ok(await k(['create', '-f', '-'], manifest));
  const requestor = ok(await k(['get', 'csr', 'alice', '-o', 'jsonpath={.spec.username}']));
  assert.equal(requestor, 'kubernetes-admin', 'the requestor is who created the CSR');
  ok(await k(['certificate', 'approve', 'alice']));
  const certB64 = await until(
    async () => ok(await k(['get', 'csr', 'alice', '-o', 'jsonpath={.status.certificate}'])),
    'the signer to issue',
    30_000,
  );
  const certPem = Buffer.from(certB64, 'base64').toString();
  const caFile = join(work, 'ca-alice.crt');
  writeFileSync(caFile, cluster.tls!.ca);
  const certFile = join(work, 'alice.crt');
  writeFileSync(certFile, certPem);
  assert.match(execFileSync('openssl', ['verify', '-CAfile', caFile, certFile], { encoding: 'utf8' }), /OK/);
  const kc = await kubeconfigFor('alice', { certPem, keyPem: readFileSync(keyFile, 'utf8') });
  const whoami = ok(await kubectl(['auth', 'whoami', '-o', 'json'], { kubeconfig: kc }));
  const info = JSON.parse(whoami).status.userInfo;
  assert.equal(info.username, 'alice');
  assert.deepEqual(info.groups, ['devs', 'system:authenticated']);
  refused(await kubectl(['get', 'pods', '-n', 'lab'], { kubeconfig: kc }), /User "alice" cannot list resource "pods"/);
});

test('a CSR asking the kube-apiserver-client signer for system:masters is refused (CertificateSubjectRestriction)', async () => {
  const keyFile = join(work, 'mallory.key');
  execFileSync('openssl', ['genrsa', '-out', keyFile, '2048'], { stdio: 'ignore' });
  const csrPem = execFileSync('openssl', ['req', '-new', '-key', keyFile, '-subj', '/CN=mallory/O=system:masters'], { encoding: 'utf8' });
  const manifest = (name: string, signer: string, request: string) => `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: ${name}}
spec:
  request: ${Buffer.from(request).toString('base64')}
  signerName: ${signer}
  usages: [client auth]
`;
  refused(
    await k(['create', '-f', '-'], manifest('mallory', 'kubernetes.io/kube-apiserver-client', csrPem)),
    /certificatesigningrequests\.certificates\.k8s\.io "mallory" is forbidden: use of kubernetes\.io\/kube-apiserver-client signer with system:masters group is not allowed/,
  );
  // Another signer is not this plugin's business.
  ok(await k(['create', '-f', '-'], manifest('mallory-other', 'example.com/my-signer', csrPem)));
});

test('escalation is refused: a user may not grant what it does not hold', async () => {
  ok(
    await k([
      'create',
      'role',
      'role-writer',
      '-n',
      'lab',
      '--verb=create,get,list',
      '--resource=roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io',
    ]),
  );
  ok(await k(['create', 'rolebinding', 'dave-writer', '-n', 'lab', '--role=role-writer', '--user=dave']));
  refused(
    await k(['create', 'role', 'secrets', '-n', 'lab', '--verb=get', '--resource=secrets', '--as', 'dave']),
    /roles\.rbac\.authorization\.k8s\.io "secrets" is forbidden: user "dave" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["get"\]\}/,
  );
  refused(
    await k(['create', 'rolebinding', 'dave-admin', '-n', 'lab', '--clusterrole=admin', '--user=dave', '--as', 'dave']),
    /is attempting to grant RBAC permissions not currently held/,
  );
  // What dave holds, he may grant.
  ok(await k(['create', 'role', 'writer-copy', '-n', 'lab', '--verb=get', '--resource=roles.rbac.authorization.k8s.io', '--as', 'dave']));
});

test("ResourceQuota, LimitRange and PodSecurity refuse with kube's messages", async () => {
  ok(await k(['create', 'namespace', 'limits']));
  ok(await k(['create', 'quota', 'pods', '-n', 'limits', '--hard=pods=1']));
  ok(
    await k(
      ['apply', '-f', '-'],
      `apiVersion: v1
kind: LimitRange
metadata: {name: cpu, namespace: limits}
spec:
  limits:
  - type: Container
    max: {cpu: "1"}
    defaultRequest: {cpu: 100m}
    default: {cpu: 200m}
`,
    ),
  );
  await until(
    async () => ok(await k(['get', 'quota', 'pods', '-n', 'limits', '-o', 'jsonpath={.status.hard.pods}'])) === '1',
    'the quota controller to fill status.hard',
    20_000,
  );
  refused(
    await k([
      'run',
      'big',
      '-n',
      'limits',
      '--image=nginx',
      '--overrides={"spec":{"containers":[{"name":"big","image":"nginx","resources":{"limits":{"cpu":"2"}}}]}}',
    ]),
    /pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2/,
  );
  ok(await k(['run', 'one', '-n', 'limits', '--image=nginx']));
  const defaulted = JSON.parse(ok(await k(['get', 'pod', 'one', '-n', 'limits', '-o', 'json'])));
  assert.deepEqual(defaulted.spec.containers[0].resources, { limits: { cpu: '200m' }, requests: { cpu: '100m' } });
  refused(
    await k(['run', 'two', '-n', 'limits', '--image=nginx']),
    /pods "two" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=1, limited: pods=1/,
  );

  ok(await k(['create', 'namespace', 'restricted']));
  ok(await k(['label', 'namespace', 'restricted', 'pod-security.kubernetes.io/enforce=restricted']));
  refused(
    await k(['run', 'root', '-n', 'restricted', '--image=nginx']),
    /pods "root" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false \(container "root" must set securityContext.allowPrivilegeEscalation=false\)/,
  );
});

test('a Pod gets the default ServiceAccount and a token file that authenticates as it', async () => {
  ok(await k(['run', 'shell', '-n', 'lab', '--image=busybox', '--', 'sleep', '3600']));
  await until(
    async () => ok(await k(['get', 'pod', 'shell', '-n', 'lab', '-o', 'jsonpath={.status.phase}'])) === 'Running',
    'the pod to run',
    30_000,
  );
  const pod = JSON.parse(ok(await k(['get', 'pod', 'shell', '-n', 'lab', '-o', 'json'])));
  assert.equal(pod.spec.serviceAccountName, 'default');
  assert.ok(
    pod.spec.containers[0].volumeMounts.some((m: { mountPath: string }) => m.mountPath === '/var/run/secrets/kubernetes.io/serviceaccount'),
  );
  const token = ok(await k(['exec', 'shell', '-n', 'lab', '--', 'cat', '/var/run/secrets/kubernetes.io/serviceaccount/token'])).trim();
  const kc = await kubeconfigFor('pod-token', { token });
  const info = JSON.parse(ok(await kubectl(['auth', 'whoami', '-o', 'json'], { kubeconfig: kc }))).status.userInfo;
  assert.equal(info.username, 'system:serviceaccount:lab:default');
  assert.deepEqual(info.extra['authentication.kubernetes.io/pod-name'], ['shell']);
  const namespace = ok(await k(['exec', 'shell', '-n', 'lab', '--', 'cat', '/var/run/secrets/kubernetes.io/serviceaccount/namespace']));
  assert.equal(namespace.trim(), 'lab');
});

test('each component works under its own identity, and the audit log shows it', async () => {
  ok(await k(['create', 'deployment', 'web', '-n', 'lab', '--image=nginx', '--replicas=2']));
  ok(await k(['rollout', 'status', 'deployment/web', '-n', 'lab', '--timeout=60s'], undefined));
  const lines = readFileSync(join(cluster.dataDir, 'audit.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const who = (pred: (ev: any) => boolean) => new Set(lines.filter(pred).map((ev) => ev.user.username));
  const inLab = (ev: any) => ev.objectRef?.namespace === 'lab';
  assert.ok(
    who((ev) => inLab(ev) && ev.verb === 'create' && ev.objectRef.resource === 'replicasets').has(
      'system:serviceaccount:kube-system:deployment-controller',
    ),
  );
  assert.ok(
    who((ev) => inLab(ev) && ev.verb === 'create' && ev.objectRef.resource === 'pods').has(
      'system:serviceaccount:kube-system:replicaset-controller',
    ),
  );
  assert.ok(who((ev) => inLab(ev) && ev.objectRef.subresource === 'binding').has('system:kube-scheduler'));
  const statusWriters = lines.filter((ev) => inLab(ev) && ev.objectRef.resource === 'pods' && ev.objectRef.subresource === 'status');
  assert.ok(
    statusWriters.some((ev) => ev.user.username === 'system:ksim:kubelet-sim' && /^system:node:/.test(ev.impersonatedUser?.username)),
  );
  const created = lines.find((ev) => inLab(ev) && ev.verb === 'create' && ev.objectRef.resource === 'deployments');
  assert.equal(created.user.username, 'kubernetes-admin');
  assert.equal(created.annotations['authorization.k8s.io/decision'], 'allow');
  assert.match(created.annotations['authorization.k8s.io/reason'], /ClusterRoleBinding "kubeadm:cluster-admins"/);
  assert.ok(lines.every((ev) => ev.kind === 'Event' && ev.apiVersion === 'audit.k8s.io/v1' && ev.auditID && ev.stageTimestamp));
});

test("a node cannot modify another node's Pods", async () => {
  const pods = JSON.parse(ok(await k(['get', 'pods', '-n', 'lab', '-l', 'app=web', '-o', 'json']))).items;
  const pod = pods[0];
  const own = pod.spec.nodeName;
  const nodes = JSON.parse(ok(await k(['get', 'nodes', '-o', 'json']))).items.map((n: any) => n.metadata.name);
  const other = nodes.find((n: string) => n !== own);
  // kubelet-sim's own credentials, acting as one node, as each simulated node's requests do.
  const kubeletSim = loadKubeconfig(join(cluster.dataDir, 'kubelet-sim.kubeconfig'));
  const asNode = (node: string) =>
    api(cluster, {
      credentials: { cert: kubeletSim.cert!, key: kubeletSim.key! },
      headers: { 'Impersonate-User': `system:node:${node}`, 'Impersonate-Group': 'system:nodes' },
    });
  const path = `/api/v1/namespaces/lab/pods/${pod.metadata.name}`;
  const patch = { status: { conditions: [{ type: 'ksim.io/Checked', status: 'True' }] } };
  const headers = { 'content-type': 'application/strategic-merge-patch+json' };
  const denied = await asNode(other).request('PATCH', `${path}/status`, patch, headers);
  assert.equal(denied.status, 403, JSON.stringify(denied.body));
  assert.match(
    denied.body.message,
    new RegExp(`node "${other}" can only update pod status for pods with spec.nodeName set to itself|forbidden`),
  );
  const deleted = await asNode(other).request('DELETE', path);
  assert.equal(deleted.status, 403, JSON.stringify(deleted.body));
  const allowed = await asNode(own).request('PATCH', `${path}/status`, patch, headers);
  assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
});
