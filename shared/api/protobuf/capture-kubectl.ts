// Records the protobuf request bodies the real kubectl sends, as test fixtures
// (kubectl-fixtures.ts). For each command it also runs the same command with
// --dry-run=client -o json when kubectl supports it: that prints the very
// object kubectl would have sent, in Go's JSON form, which is what decoding
// the protobuf body must give. Run by hand (the output is committed):
//
//   node --import tsx shared/api/protobuf/capture-kubectl.ts [path/to/kubectl]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESOURCES } from '../resources.ts';

interface Case {
  name: string;
  args: string[];
  /** Whether `--dry-run=client -o json` gives the object kubectl sends. */
  dryRun: boolean;
}

const CASES: Case[] = [
  { name: 'create namespace', args: ['create', 'namespace', 'foo'], dryRun: true },
  { name: 'create configmap', args: ['create', 'configmap', 'c', '--from-literal=a=b'], dryRun: true },
  { name: 'create secret generic', args: ['create', 'secret', 'generic', 's', '--from-literal=k=v'], dryRun: true },
  {
    name: 'create deployment',
    args: ['create', 'deployment', 'd', '--image=nginx', '--replicas=2', '--port=80'],
    dryRun: true,
  },
  { name: 'create deployment replicas 0', args: ['create', 'deployment', 'z', '--image=nginx', '--replicas=0'], dryRun: true },
  { name: 'create service clusterip', args: ['create', 'service', 'clusterip', 'svc', '--tcp=80:8080'], dryRun: true },
  { name: 'create job', args: ['create', 'job', 'j', '--image=busybox', '--', 'echo', 'hi'], dryRun: true },
  { name: 'create cronjob', args: ['create', 'cronjob', 'cj', '--image=busybox', '--schedule=*/5 * * * *'], dryRun: true },
  { name: 'create role', args: ['create', 'role', 'r', '--verb=get,list', '--resource=pods'], dryRun: true },
  {
    name: 'create rolebinding',
    args: ['create', 'rolebinding', 'rb', '--role=r', '--user=alice', '--serviceaccount=default:sa'],
    dryRun: true,
  },
  { name: 'create clusterrole', args: ['create', 'clusterrole', 'cr', '--verb=get', '--resource=nodes'], dryRun: true },
  { name: 'create serviceaccount', args: ['create', 'serviceaccount', 'sa'], dryRun: true },
  { name: 'create quota', args: ['create', 'quota', 'q', '--hard=cpu=1,memory=1Gi,pods=10'], dryRun: true },
  { name: 'create priorityclass', args: ['create', 'priorityclass', 'pc', '--value=1000', '--description=high'], dryRun: true },
  {
    name: 'create poddisruptionbudget',
    args: ['create', 'poddisruptionbudget', 'pdb', '--selector=app=d', '--min-available=50%'],
    dryRun: true,
  },
  { name: 'run', args: ['run', 'p', '--image=nginx', '--port=80', '--env=A=1', '--labels=app=p'], dryRun: true },
  { name: 'expose', args: ['expose', 'deployment', 'd', '--port=80', '--target-port=8080'], dryRun: true },
  { name: 'create token', args: ['create', 'token', 'sa', '--duration=1h'], dryRun: false },
  { name: 'auth can-i', args: ['auth', 'can-i', 'get', 'pods'], dryRun: false },
  { name: 'auth whoami', args: ['auth', 'whoami'], dryRun: false },
];

/** Kinds kubectl posts that are not in the resource table: [group, version, kind, plural, namespaced]. */
const EXTRA: [string, string, string, string, boolean][] = [
  ['authorization.k8s.io', 'v1', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', false],
  ['authorization.k8s.io', 'v1', 'SelfSubjectRulesReview', 'selfsubjectrulesreviews', false],
  ['authentication.k8s.io', 'v1', 'SelfSubjectReview', 'selfsubjectreviews', false],
  ['scheduling.k8s.io', 'v1', 'PriorityClass', 'priorityclasses', false],
];

function resourceLists(): Map<string, { group: string; version: string; resources: object[] }> {
  const lists = new Map<string, { group: string; version: string; resources: object[] }>();
  const add = (group: string, version: string, r: object): void => {
    const gv = group ? `${group}/${version}` : version;
    if (!lists.has(gv)) lists.set(gv, { group, version, resources: [] });
    lists.get(gv)!.resources.push(r);
  };
  const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
  for (const rt of RESOURCES) {
    add(rt.group, rt.version, {
      name: rt.plural,
      singularName: rt.singular,
      namespaced: rt.namespaced,
      kind: rt.kind,
      verbs,
      shortNames: rt.shortNames,
    });
    for (const sub of rt.subresources) {
      const kind = sub === 'token' ? 'TokenRequest' : sub === 'scale' ? 'Scale' : rt.kind;
      const group = sub === 'token' ? 'authentication.k8s.io' : sub === 'scale' ? 'autoscaling' : undefined;
      add(rt.group, rt.version, {
        name: `${rt.plural}/${sub}`,
        singularName: '',
        namespaced: rt.namespaced,
        kind,
        ...(group ? { group, version: 'v1' } : {}),
        verbs: sub === 'token' ? ['create'] : ['get', 'patch', 'update'],
      });
    }
  }
  for (const [group, version, kind, plural, namespaced] of EXTRA) {
    if (lists.get(`${group}/${version}`)?.resources.some((r) => (r as { name: string }).name === plural)) continue;
    add(group, version, { name: plural, singularName: kind.toLowerCase(), namespaced, kind, verbs: ['create'] });
  }
  return lists;
}

const DEPLOYMENT_D = {
  kind: 'Deployment',
  apiVersion: 'apps/v1',
  metadata: { name: 'd', namespace: 'default', uid: 'u1', resourceVersion: '1', labels: { app: 'd' } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'd' } },
    template: {
      metadata: { labels: { app: 'd' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }] }] },
    },
  },
};

interface Recorded {
  method: string;
  url: string;
  contentType: string;
  accept: string;
  body: Buffer;
}

async function main(): Promise<void> {
  const kubectl = process.argv[2] ?? join(process.cwd(), '.tools/bin/kubectl');
  const lists = resourceLists();
  let recorded: Recorded[] = [];

  const json = (res: ServerResponse, code: number, body: unknown): void => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname;
      if (req.method === 'GET') {
        if (path === '/api') return json(res, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
        if (path === '/apis') {
          const groups = [...lists.values()]
            .filter((l) => l.group)
            .map((l) => ({
              name: l.group,
              versions: [{ groupVersion: `${l.group}/${l.version}`, version: l.version }],
              preferredVersion: { groupVersion: `${l.group}/${l.version}`, version: l.version },
            }));
          return json(res, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups });
        }
        const gv = path.startsWith('/api/') ? path.slice(5) : path.startsWith('/apis/') ? path.slice(6) : '';
        const list = lists.get(gv);
        if (list) {
          return json(res, 200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources: list.resources });
        }
        if (path === '/apis/apps/v1/namespaces/default/deployments/d') return json(res, 200, DEPLOYMENT_D);
        return json(res, 404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404 });
      }
      recorded.push({
        method: req.method ?? '',
        url: req.url ?? '',
        contentType: String(req.headers['content-type'] ?? ''),
        accept: String(req.headers.accept ?? ''),
        body: Buffer.concat(chunks),
      });
      // Only the request matters; any well-formed answer will do.
      if (path.endsWith('/selfsubjectaccessreviews')) {
        return json(res, 201, {
          kind: 'SelfSubjectAccessReview',
          apiVersion: 'authorization.k8s.io/v1',
          metadata: {},
          spec: {},
          status: { allowed: true },
        });
      }
      if (path.endsWith('/selfsubjectreviews')) {
        return json(res, 201, {
          kind: 'SelfSubjectReview',
          apiVersion: 'authentication.k8s.io/v1',
          metadata: {},
          status: { userInfo: { username: 'admin' } },
        });
      }
      if (path.endsWith('/token')) {
        return json(res, 201, {
          kind: 'TokenRequest',
          apiVersion: 'authentication.k8s.io/v1',
          metadata: {},
          spec: { audiences: [] },
          status: { token: 't', expirationTimestamp: '2030-01-01T00:00:00Z' },
        });
      }
      return json(res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const home = mkdtempSync(join(tmpdir(), 'ksim-capture-'));
  const kubeconfig = join(home, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u, namespace: default}}]
current-context: c
`,
  );
  // Not spawnSync: that would block the event loop that answers kubectl.
  const run = (args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const p = spawn(kubectl, ['--kubeconfig', kubeconfig, ...args], { env: { HOME: home, PATH: process.env.PATH ?? '' } });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('close', (status) => resolve({ status, stdout, stderr }));
    });

  const fixtures: string[] = [];
  try {
    for (const c of CASES) {
      recorded = [];
      const r = await run(c.args);
      const posts = recorded.filter((x) => x.method === 'POST');
      if (posts.length !== 1) {
        console.error(`${c.name}: ${posts.length} POST requests (status ${r.status}) ${r.stderr}`);
        console.error(recorded.map((x) => `${x.method} ${x.url} ${x.contentType}`).join('\n'));
        continue;
      }
      const post = posts[0];
      let expected: unknown;
      if (c.dryRun) {
        // The flags go before a `--` that starts the container command.
        const dash = c.args.includes('--') ? c.args.indexOf('--') : c.args.length;
        const d = await run([...c.args.slice(0, dash), '--dry-run=client', '-o', 'json', ...c.args.slice(dash)]);
        if (d.status !== 0) throw new Error(`${c.name} dry run: ${d.stderr}`);
        expected = JSON.parse(d.stdout);
      }
      console.error(`${c.name}: ${post.method} ${post.url} ${post.contentType} (${post.body.length} bytes; kubectl exit ${r.status})`);
      fixtures.push(
        `  {\n    name: ${JSON.stringify(c.name)},\n    command: ${JSON.stringify(['kubectl', ...c.args].join(' '))},\n` +
          `    method: ${JSON.stringify(post.method)},\n    url: ${JSON.stringify(post.url)},\n` +
          `    contentType: ${JSON.stringify(post.contentType)},\n    accept: ${JSON.stringify(post.accept)},\n` +
          `    body: ${JSON.stringify(post.body.toString('base64'))},\n` +
          (expected === undefined ? '' : `    dryRunJson: ${JSON.stringify(expected)},\n`) +
          `  },`,
      );
    }
  } finally {
    server.close();
    rmSync(home, { recursive: true, force: true });
  }
  const version = spawnSync(kubectl, ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
  const gitVersion = (JSON.parse(version.stdout) as { clientVersion: { gitVersion: string } }).clientVersion.gitVersion;
  writeFileSync(
    new URL('./kubectl-fixtures.ts', import.meta.url),
    `// Request bodies recorded from the real kubectl ${gitVersion} by capture-kubectl.ts
// (base64), with the JSON that \`--dry-run=client -o json\` printed for the same
// command: the object kubectl sent, in Go's JSON form. Generated; do not edit.

/** One recorded kubectl request. */
export interface KubectlFixture {
  name: string;
  command: string;
  method: string;
  url: string;
  contentType: string;
  accept: string;
  /** The request body, base64 (protobuf, or JSON for the commands that still send JSON). */
  body: string;
  /** What kubectl printed for the same command with --dry-run=client -o json. */
  dryRunJson?: unknown;
}

/** Bodies of kubectl ${gitVersion}. */
export const KUBECTL_VERSION = ${JSON.stringify(gitVersion)};

export const KUBECTL_FIXTURES: KubectlFixture[] = [
${fixtures.join('\n')}
];
`,
  );
}

await main();
