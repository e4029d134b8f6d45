// The kinds kubectl, helm and cluster-info dump list, with the real kubectl
// v1.35: api-resources with kube's short names, categories and verbs; create,
// get and the printed columns of each new kind; kube's validation messages;
// the bootstrap FlowSchemas, PriorityLevelConfigurations and local
// APIServices; `kubectl cluster-info dump`; `kubectl apply --prune` with the
// default allowlist.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { kubectl as runKubectl, startApiserver, tempDir, ok, type Apiserver, type ToolResult } from './helpers/index.ts';

let server: Apiserver;
let dir: string;

before(async () => {
  server = await startApiserver();
  dir = await tempDir('kinds');
});
after(() => server?.stop());

const k = (args: string[], input?: string) => runKubectl(args, { kubeconfig: server.kubeconfig, input });

function fails(r: ToolResult): string {
  assert.notEqual(r.code, 0, `kubectl should have failed:\n${r.stdout}`);
  return r.stderr;
}

/** The header and rows of `kubectl get` output, split on runs of 2+ spaces. */
function table(out: string): string[][] {
  return out
    .trimEnd()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));
}

describe('discovery', () => {
  test('api-resources lists the new kinds with short names, namespacing, categories and verbs', async () => {
    const out = ok(await k(['api-resources', '-o', 'wide']));
    const rows = new Map(table(out).map((r) => [r[0], r.slice(1).join(' | ')]));
    const expect: Record<string, string> = {
      componentstatuses: 'cs | v1 | false | ComponentStatus | get,list',
      podtemplates: 'v1 | true | PodTemplate | create,delete,deletecollection,get,list,patch,update,watch',
      validatingwebhookconfigurations:
        'admissionregistration.k8s.io/v1 | false | ValidatingWebhookConfiguration | create,delete,deletecollection,get,list,patch,update,watch | api-extensions',
      mutatingwebhookconfigurations:
        'admissionregistration.k8s.io/v1 | false | MutatingWebhookConfiguration | create,delete,deletecollection,get,list,patch,update,watch | api-extensions',
      apiservices:
        'apiregistration.k8s.io/v1 | false | APIService | create,delete,deletecollection,get,list,patch,update,watch | api-extensions',
      flowschemas: 'flowcontrol.apiserver.k8s.io/v1 | false | FlowSchema | create,delete,deletecollection,get,list,patch,update,watch',
      runtimeclasses: 'node.k8s.io/v1 | false | RuntimeClass | create,delete,deletecollection,get,list,patch,update,watch',
      csidrivers: 'storage.k8s.io/v1 | false | CSIDriver | create,delete,deletecollection,get,list,patch,update,watch',
      csistoragecapacities: 'storage.k8s.io/v1 | true | CSIStorageCapacity | create,delete,deletecollection,get,list,patch,update,watch',
      volumeattributesclasses:
        'vac | storage.k8s.io/v1 | false | VolumeAttributesClass | create,delete,deletecollection,get,list,patch,update,watch',
      ipaddresses: 'ip | networking.k8s.io/v1 | false | IPAddress | create,delete,deletecollection,get,list,patch,update,watch',
      resourceclaims: 'resource.k8s.io/v1 | true | ResourceClaim | create,delete,deletecollection,get,list,patch,update,watch',
    };
    for (const [name, want] of Object.entries(expect)) assert.equal(rows.get(name), want, name);
    for (const gv of ['flowcontrol.apiserver.k8s.io/v1', 'node.k8s.io/v1', 'apiregistration.k8s.io/v1', 'resource.k8s.io/v1']) {
      assert.ok(
        ok(await k(['api-versions']))
          .split('\n')
          .includes(gv),
        gv,
      );
    }
  });
});

describe('bootstrap objects', () => {
  test('kube-apiserver bootstrap FlowSchemas and priority levels, as `kubectl get` prints them', async () => {
    const fs = table(ok(await k(['get', 'flowschemas', '--sort-by=.spec.matchingPrecedence'])));
    assert.deepEqual(fs[0], ['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'AGE', 'MISSINGPL']);
    assert.deepEqual(
      fs.slice(1).map((r) => [r[0], r[1], r[2], r[3], r[5]].join(' ')),
      [
        'exempt exempt 1 <none> False',
        'probes exempt 2 <none> False',
        'system-leader-election leader-election 100 ByUser False',
        'endpoint-controller workload-high 150 ByUser False',
        'workload-leader-election leader-election 200 ByUser False',
        'system-node-high node-high 400 ByUser False',
        'system-nodes system 500 ByUser False',
        'kube-controller-manager workload-high 800 ByNamespace False',
        'kube-scheduler workload-high 800 ByNamespace False',
        'kube-system-service-accounts workload-high 900 ByNamespace False',
        'service-accounts workload-low 9000 ByUser False',
        'global-default global-default 9900 ByUser False',
        'catch-all catch-all 10000 ByUser False',
      ],
    );
    const pl = table(ok(await k(['get', 'prioritylevelconfigurations'])));
    assert.deepEqual(pl[0], ['NAME', 'TYPE', 'NOMINALCONCURRENCYSHARES', 'QUEUES', 'HANDSIZE', 'QUEUELENGTHLIMIT', 'AGE']);
    const rows = new Map(pl.slice(1).map((r) => [r[0], r.slice(1, 6).join(' ')]));
    assert.equal(rows.get('exempt'), 'Exempt <none> <none> <none> <none>');
    assert.equal(rows.get('catch-all'), 'Limited 5 <none> <none> <none>');
    assert.equal(rows.get('global-default'), 'Limited 20 128 6 50');
    assert.equal(rows.size, 8);
  });

  test('local APIServices for the built-in group-versions, Available', async () => {
    const rows = table(ok(await k(['get', 'apiservices'])));
    assert.deepEqual(rows[0], ['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
    const byName = new Map(rows.slice(1).map((r) => [r[0], `${r[1]} ${r[2]}`]));
    for (const n of [
      'v1.',
      'v1.apps',
      'v2.autoscaling',
      'v1.flowcontrol.apiserver.k8s.io',
      'v1.storage.k8s.io',
      'v1beta1.metrics.k8s.io',
    ]) {
      assert.equal(byName.get(n), 'Local True', n);
    }
  });
});

const webhookYaml = (name: string, extra = '') => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: ${name}}
webhooks:
- name: check.example.com
  clientConfig: {url: "https://hooks.example.com/check"}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
${extra}`;

describe('create, get and print each new kind', () => {
  test('RuntimeClass, CSIDriver, CSINode, VolumeAttachment, PodTemplate, webhooks and the rest', async () => {
    ok(
      await k(
        ['apply', '-f', '-'],
        `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: hostpath.csi.k8s.io}
spec:
  tokenRequests: [{audience: vault}]
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-1}
spec:
  drivers: [{name: hostpath.csi.k8s.io, nodeID: node-1}]
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va-1}
spec:
  attacher: hostpath.csi.k8s.io
  nodeName: node-1
  source: {persistentVolumeName: pv-1}
---
apiVersion: v1
kind: PodTemplate
metadata: {name: tpl, namespace: default}
template:
  metadata: {labels: {app: web}}
  spec:
    containers: [{name: web, image: "nginx:1.27"}, {name: side, image: busybox}]
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttributesClass
metadata: {name: fast}
driverName: hostpath.csi.k8s.io
parameters: {iops: "3000"}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: cap-1, namespace: default}
storageClassName: standard
capacity: 10Gi
---
apiVersion: networking.k8s.io/v1
kind: ServiceCIDR
metadata: {name: extra}
spec: {cidrs: [10.100.0.0/16]}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec: {}
---
${webhookYaml('vwc', '  sideEffects: None\n  admissionReviewVersions: [v1]\n')}`,
      ),
    );
    assert.deepEqual(
      table(ok(await k(['get', 'runtimeclass', 'gvisor']))).map((r) => r.slice(0, 2)),
      [
        ['NAME', 'HANDLER'],
        ['gvisor', 'runsc'],
      ],
    );
    const csi = table(ok(await k(['get', 'csidrivers'])));
    assert.deepEqual(csi[0], [
      'NAME',
      'ATTACHREQUIRED',
      'PODINFOONMOUNT',
      'STORAGECAPACITY',
      'TOKENREQUESTS',
      'REQUIRESREPUBLISH',
      'MODES',
      'AGE',
    ]);
    assert.deepEqual(csi[1].slice(0, 7), ['hostpath.csi.k8s.io', 'true', 'false', 'false', 'vault', 'false', 'Persistent']);
    // kube's defaults, stored.
    const driver = JSON.parse(ok(await k(['get', 'csidriver', 'hostpath.csi.k8s.io', '-o', 'json'])));
    assert.equal(driver.spec.fsGroupPolicy, 'ReadWriteOnceWithFSType');
    assert.deepEqual(
      table(ok(await k(['get', 'csinodes']))).map((r) => r.slice(0, 2)),
      [
        ['NAME', 'DRIVERS'],
        ['node-1', '1'],
      ],
    );
    assert.deepEqual(
      table(ok(await k(['get', 'volumeattachments']))).map((r) => r.slice(0, 5)),
      [
        ['NAME', 'ATTACHER', 'PV', 'NODE', 'ATTACHED'],
        ['va-1', 'hostpath.csi.k8s.io', 'pv-1', 'node-1', 'false'],
      ],
    );
    assert.deepEqual(table(ok(await k(['get', 'podtemplates']))), [
      ['NAME', 'CONTAINERS', 'IMAGES', 'POD LABELS'],
      ['tpl', 'web,side', 'nginx:1.27,busybox', 'app=web'],
    ]);
    assert.deepEqual(
      table(ok(await k(['get', 'vac']))).map((r) => r.slice(0, 2)),
      [
        ['NAME', 'DRIVERNAME'],
        ['fast', 'hostpath.csi.k8s.io'],
      ],
    );
    assert.deepEqual(table(ok(await k(['get', 'csistoragecapacities']))), [
      ['NAME', 'STORAGECLASSNAME', 'CAPACITY'],
      ['cap-1', 'standard', '10Gi'],
    ]);
    // kube-apiserver's own range, and the one created here.
    assert.deepEqual(
      table(ok(await k(['get', 'servicecidrs']))).map((r) => r.slice(0, 2)),
      [
        ['NAME', 'CIDRS'],
        ['extra', '10.100.0.0/16'],
        ['kubernetes', '10.96.0.0/12'],
      ],
    );
    assert.deepEqual(
      table(ok(await k(['get', 'deviceclasses']))).map((r) => r.slice(0, 1)),
      [['NAME'], ['gpu.example.com']],
    );
    assert.deepEqual(
      table(ok(await k(['get', 'validatingwebhookconfigurations']))).map((r) => r.slice(0, 2)),
      [
        ['NAME', 'WEBHOOKS'],
        ['vwc', '1'],
      ],
    );
    const hook = JSON.parse(ok(await k(['get', 'validatingwebhookconfiguration', 'vwc', '-o', 'json']))).webhooks[0];
    assert.deepEqual(
      [hook.failurePolicy, hook.matchPolicy, hook.timeoutSeconds, hook.rules[0].scope, hook.namespaceSelector],
      ['Fail', 'Equivalent', 10, '*', {}],
    );
  });

  test("kube's validation messages", async () => {
    assert.match(
      fails(await k(['create', '-f', '-'], webhookYaml('bad'))),
      new RegExp(
        [
          'The ValidatingWebhookConfiguration "bad" is invalid: ',
          '\\* webhooks\\[0\\]\\.sideEffects: Required value: must specify one of None, NoneOnDryRun',
          '\\* webhooks\\[0\\]\\.admissionReviewVersions: Required value: must specify one of v1, v1beta1',
        ].join('\\n'),
      ),
    );
    assert.match(
      fails(
        await k(['create', '-f', '-'], 'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: bad}\nhandler: Not_A_Label\n'),
      ),
      /The RuntimeClass "bad" is invalid: handler: Invalid value: "Not_A_Label": a lowercase RFC 1123 label must consist of/,
    );
    assert.match(
      fails(await k(['patch', 'runtimeclass', 'gvisor', '--type=merge', '-p', '{"handler":"runc"}'])),
      /handler: Invalid value: "runc": field is immutable/,
    );
    assert.match(
      fails(
        await k(
          ['create', '-f', '-'],
          'apiVersion: storage.k8s.io/v1\nkind: VolumeAttachment\nmetadata: {name: va-2}\nspec: {attacher: a.b, nodeName: n1, source: {}}\n',
        ),
      ),
      /spec\.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName/,
    );
    assert.match(
      fails(
        await k(
          ['create', '-f', '-'],
          'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata: {name: fs1}\nspec: {priorityLevelConfiguration: {name: ""}, matchingPrecedence: 1}\n',
        ),
      ),
      new RegExp(
        [
          "\\* spec\\.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1",
          '\\* spec\\.priorityLevelConfiguration\\.name: Required value: must reference a priority level',
        ].join('\\n'),
      ),
    );
  });
});

describe('ComponentStatus', () => {
  // Computed on each request (registry/kinds/component-status.ts, dispatched by api-handler.ts).
  test('kubectl get cs: computed health with the deprecation warning (this apiserver runs no scheduler or controller-manager)', async () => {
    const r = await k(['get', 'cs']);
    assert.match(ok(r), /^NAME\s+STATUS\s+MESSAGE\s+ERROR$/m);
    assert.match(r.stdout, /^scheduler\s+Unhealthy\s+no kube-system\/kube-scheduler Lease/m);
    assert.match(r.stdout, /^controller-manager\s+Unhealthy\s+/m);
    assert.match(r.stdout, /^etcd-0\s+Healthy\s+ok\s*$/m);
    assert.match(r.stderr, /Warning: v1 ComponentStatus is deprecated in v1\.19\+/);
    assert.match(fails(await k(['delete', 'cs', 'etcd-0'])), /the server does not allow this method on the requested resource/);
  });
});

describe('tools that list every kind', () => {
  test('kubectl cluster-info dump exits 0', async () => {
    const out = join(dir, 'dump');
    ok(await k(['cluster-info', 'dump', '--all-namespaces', '--output-directory', out]));
  });

  // kubectl 1.35 refuses --all together with -l, so each is its own run; both walk kubectl's default prune allowlist.
  for (const [how, flags] of [
    ['-l app=x', ['-l', 'app=x']],
    ['--all', ['--all', '-n', 'prune-all']],
  ] as const) {
    test(`kubectl apply --prune ${how} removes the objects no longer in the file`, async () => {
      const ns = how === '--all' ? 'prune-all' : 'default';
      if (ns !== 'default') ok(await k(['create', 'namespace', ns]));
      const cm = (name: string) =>
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: ${ns}, labels: {app: x}}\ndata: {k: v}\n`;
      const deploy = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ${ns}, labels: {app: x}}
spec:
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x}}
    spec: {containers: [{name: web, image: "nginx:1.27"}]}
`;
      ok(await k(['apply', '--prune', ...flags, '-f', '-'], `${cm('keep')}---\n${cm('drop')}---\n${deploy}`));
      const second = ok(await k(['apply', '--prune', ...flags, '-f', '-'], cm('keep')));
      assert.match(second, /configmap\/drop pruned/);
      assert.match(second, /deployment\.apps\/web pruned/);
      assert.match(fails(await k(['get', 'configmap', 'drop', '-n', ns])), /NotFound/);
      ok(await k(['get', 'configmap', 'keep', '-n', ns]));
    });
  }
});
