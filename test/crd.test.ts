// CustomResourceDefinitions end to end with the real kubectl: a CRD applied
// becomes Established and its resource is served (discovery, short names,
// categories, explain), custom resources are defaulted, pruned and
// validated (schema and CEL, kube's exact messages), printed with the
// CRD's columns, scaled through the scale subresource and watched; a CRD
// whose rule does not compile is refused; deleting the CRD deletes its
// objects.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  eventually,
  kubectl as runKubectl,
  kubectlBin,
  homeFor,
  ok,
  startApiserver,
  startCluster,
  type Apiserver,
  type Cluster,
  type ToolResult,
} from './helpers/index.ts';

let server: Apiserver;
const k = (args: string[], input?: string) => runKubectl(args, { kubeconfig: server.kubeconfig, input });

function fails(r: ToolResult, text: string): void {
  assert.notEqual(r.code, 0, `kubectl should have failed:\n${r.stdout}`);
  assert.ok(r.stderr.includes(text), `stderr:\n${r.stderr}\nshould include:\n${text}`);
}

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - name: Spec
      type: string
      jsonPath: .spec.cronSpec
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Image
      type: string
      priority: 1
      jsonPath: .spec.image
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.replicas <= self.maxReplicas
              message: replicas must not exceed maxReplicas
            properties:
              cronSpec:
                type: string
                pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'
              image:
                type: string
                maxLength: 20
              replicas:
                type: integer
                minimum: 0
                default: 1
              maxReplicas:
                type: integer
                default: 10
              size:
                type: string
                enum: [small, large]
          status:
            type: object
            properties:
              replicas:
                type: integer
`;

const cronTab = (name: string, spec: string) => `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: ${name}
spec:
${spec}`;

before(async () => {
  server = await startApiserver();
});
after(() => server?.stop());

describe('CustomResourceDefinitions', () => {
  test('a CRD is accepted, Established and served', async () => {
    ok(await k(['apply', '-f', '-'], CRD));
    await eventually('the CRD to be Established', async () => {
      const r = await k([
        'get',
        'crd',
        'crontabs.stable.example.com',
        '-o',
        'jsonpath={.status.conditions[?(@.type=="Established")].status}',
      ]);
      return r.stdout === 'True';
    });
    const crd = JSON.parse(ok(await k(['get', 'crd', 'crontabs.stable.example.com', '-o', 'json']))) as {
      status: {
        acceptedNames: { kind: string; plural: string };
        storedVersions: string[];
        conditions: { type: string; reason: string; message: string }[];
      };
    };
    assert.equal(crd.status.acceptedNames.kind, 'CronTab');
    assert.deepEqual(crd.status.storedVersions, ['v1']);
    assert.deepEqual(
      crd.status.conditions.map((c) => [c.type, c.reason, c.message]),
      [
        ['NamesAccepted', 'NoConflicts', 'no conflicts found'],
        ['Established', 'InitialNamesAccepted', 'the initial names have been accepted'],
      ],
    );
    assert.match(
      ok(await k(['api-resources', '--api-group=stable.example.com'])),
      /^crontabs\s+ct\s+stable\.example\.com\/v1\s+true\s+CronTab$/m,
    );
    // kubectl explain reads the CRD's schema from /openapi/v3, published as soon as the CRD is served.
    const explained = ok(await k(['explain', 'crontab.spec']));
    assert.match(explained, /^KIND:\s+CronTab$/m);
    assert.match(explained, /^FIELD: spec <Object>$/m);
    assert.match(explained, /^\s+cronSpec\s+<string>$/m);
    assert.match(explained, /^\s+replicas\s+<integer>$/m);
  });

  test('custom resources: defaults, printer columns, short names, categories', async () => {
    ok(await k(['apply', '-f', '-'], cronTab('nightly', '  cronSpec: "0 3 * * *"\n  image: my-cron:1\n')));
    const obj = JSON.parse(ok(await k(['get', 'crontab', 'nightly', '-o', 'json']))) as { spec: Record<string, unknown> };
    assert.deepEqual(obj.spec, { cronSpec: '0 3 * * *', image: 'my-cron:1', replicas: 1, maxReplicas: 10 });
    assert.match(ok(await k(['get', 'ct'])), /^NAME\s+SPEC\s+REPLICAS\nnightly\s+0 3 \* \* \*\s+1\n$/);
    assert.match(
      ok(await k(['get', 'crontabs', '-o', 'wide'])),
      /^NAME\s+SPEC\s+REPLICAS\s+IMAGE\nnightly\s+0 3 \* \* \*\s+1\s+my-cron:1\n$/,
    );
    assert.match(ok(await k(['get', 'all'])), /crontab\.stable\.example\.com\/nightly/);
  });

  test('pruning: Strict refuses an unknown field, Warn warns and drops it', async () => {
    const body = cronTab('pruned', '  cronSpec: "* * * * *"\n  bogus: 1\n');
    // The server's fieldValidation, asked for directly (kubectl create --raw sends the body as it is): in CI, kubectl
    // once chose to validate a custom resource itself against /openapi/v2 instead of sending fieldValidation=Strict.
    const raw = (validation: string) => [
      'create',
      '--raw',
      `/apis/stable.example.com/v1/namespaces/default/crontabs?fieldValidation=${validation}`,
      '-f',
      '-',
    ];
    const json = JSON.stringify({
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
      metadata: { name: 'pruned' },
      spec: { cronSpec: '* * * * *', bogus: 1 },
    });
    fails(
      await k(raw('Strict'), json),
      'CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "spec.bogus"',
    );
    // kubectl's own path, when it finds the server's field validation (it does on a quiet machine).
    const viaKubectl = await k(['create', '-f', '-'], body);
    assert.notEqual(viaKubectl.code, 0);
    assert.match(viaKubectl.stderr, /unknown field "(spec\.)?bogus"/);
    const r = await k(raw('Warn'), json);
    ok(r);
    assert.match(r.stderr, /Warning: unknown field "spec.bogus"/);
    const spec = JSON.parse(ok(await k(['get', 'crontab', 'pruned', '-o', 'jsonpath={.spec}']))) as Record<string, unknown>;
    // kubectl patch sends no fieldValidation: the server's default, Warn.
    const patched = await k(['patch', 'crontab', 'pruned', '--type=merge', '-p', '{"spec":{"other":1}}']);
    ok(patched);
    assert.match(patched.stderr, /Warning: unknown field "spec.other"/);
    assert.equal(spec.bogus, undefined);
  });

  test('schema and CEL validation errors with kube messages', async () => {
    fails(
      await k(
        ['create', '-f', '-'],
        cronTab('bad', '  cronSpec: "often"\n  replicas: -1\n  size: huge\n  image: a-very-long-image-name:latest\n'),
      ),
      'The CronTab "bad" is invalid: \n' +
        '* spec.cronSpec: Invalid value: "often": spec.cronSpec in body should match \'^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$\'\n' +
        '* spec.image: Too long: may not be more than 20 bytes\n' +
        '* spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0\n' +
        '* spec.size: Unsupported value: "huge": supported values: "small", "large"',
    );
    // The server's own type check (kubectl once validated this one itself against /openapi/v2 in CI, which is
    // kubectl's fallback when it finds no fieldValidation for the kind in /openapi/v3: see the session note).
    fails(
      await k(['create', '--validate=false', '-f', '-'], cronTab('typed', '  replicas: many\n')),
      'The CronTab "typed" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    );
    fails(
      await k(['create', '-f', '-'], cronTab('too-many', '  replicas: 5\n  maxReplicas: 3\n')),
      'The CronTab "too-many" is invalid: spec: Invalid value: "object": replicas must not exceed maxReplicas',
    );
  });

  test('a CRD whose CEL rule does not compile is refused', async () => {
    const broken = CRD.replace('crontabs.stable.example.com', 'widgets.stable.example.com')
      .replace('plural: crontabs', 'plural: widgets')
      .replace('singular: crontab', 'singular: widget')
      .replace('kind: CronTab', 'kind: Widget')
      .replace('shortNames: [ct]', 'shortNames: [wd]')
      .replace('rule: self.replicas <= self.maxReplicas', 'rule: self.replicas <=');
    const r = await k(['apply', '-f', '-'], broken);
    fails(
      r,
      'The CustomResourceDefinition "widgets.stable.example.com" is invalid: spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.replicas <=", Message:"replicas must not exceed maxReplicas"',
    );
    assert.match(r.stderr, /compilation failed: ERROR: <input>:1:/);
  });

  test('a CRD with two storage versions is refused', async () => {
    const two = CRD.replace('crontabs.stable.example.com', 'gadgets.stable.example.com')
      .replace('plural: crontabs', 'plural: gadgets')
      .replace('singular: crontab', 'singular: gadget')
      .replace('kind: CronTab', 'kind: Gadget')
      .replace('shortNames: [ct]', 'shortNames: [gd]')
      .replace(
        '  versions:\n  - name: v1\n    served: true\n    storage: true\n',
        '  versions:\n  - name: v2\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: object}}\n  - name: v1\n    served: true\n    storage: true\n',
      );
    fails(await k(['apply', '-f', '-'], two), 'must have exactly one version marked as storage version');
  });

  test('scale subresource, status subresource and watch', async () => {
    const home = await homeFor(server.kubeconfig);
    const watch = spawn(kubectlBin, ['get', 'crontabs', '-w', '--output-watch-events'], {
      env: { ...process.env, HOME: home, KUBECONFIG: server.kubeconfig },
    });
    let seen = '';
    watch.stdout.on('data', (d: Buffer) => (seen += d.toString()));
    try {
      await eventually('the watch to list nightly', () => Promise.resolve(/ADDED\s+nightly/.test(seen)), 15_000);
      assert.match(ok(await k(['scale', 'crontab', 'nightly', '--replicas=3'])), /crontab\.stable\.example\.com\/nightly scaled/);
      assert.equal(ok(await k(['get', 'crontab', 'nightly', '-o', 'jsonpath={.spec.replicas}'])), '3');
      await eventually(
        'the watch to see the new replicas',
        () => Promise.resolve(/MODIFIED\s+nightly\s+0 3 \* \* \*\s+3/.test(seen)),
        15_000,
      );
      const scale = JSON.parse(ok(await k(['get', '--raw', '/apis/stable.example.com/v1/namespaces/default/crontabs/nightly/scale']))) as {
        kind: string;
        spec: { replicas: number };
      };
      assert.equal(scale.kind, 'Scale');
      assert.equal(scale.spec.replicas, 3);
      // The object's status is the status subresource's: a create or update of the object leaves it alone.
      ok(await k(['patch', 'crontab', 'nightly', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":3,"junk":1}}']));
      assert.equal(ok(await k(['get', 'crontab', 'nightly', '-o', 'jsonpath={.status}'])), '{"replicas":3}');
      ok(await k(['patch', 'crontab', 'nightly', '--type=merge', '-p', '{"status":{"replicas":7}}']));
      assert.equal(ok(await k(['get', 'crontab', 'nightly', '-o', 'jsonpath={.status.replicas}'])), '3');
    } finally {
      watch.kill();
    }
  });

  test('strategic merge patch is refused for custom resources', async () => {
    fails(
      await k(['patch', 'crontab', 'nightly', '--type=strategic', '-p', '{"spec":{"replicas":2}}']),
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  });

  test('deleting the CRD deletes its objects', async () => {
    ok(await k(['delete', 'crd', 'crontabs.stable.example.com']));
    await eventually('the CRD to go', async () => (await k(['get', 'crd', 'crontabs.stable.example.com'])).code !== 0);
    fails(await k(['get', '--raw', '/apis/stable.example.com/v1/namespaces/default/crontabs']), 'NotFound');
    // A CRD made again starts with no objects.
    ok(await k(['apply', '-f', '-'], CRD));
    await eventually('the CRD to be Established again', async () => (await k(['get', 'crontabs'])).code === 0);
    assert.equal(ok(await k(['get', 'crontabs', '-o', 'name'])), '');
  });
});

const GADGETS = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.tools.example.com
spec:
  group: tools.example.com
  scope: Cluster
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1beta1
    served: true
    storage: false
    deprecated: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string, default: blue}
              parts:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    count: {type: integer}
  - name: v1
    served: true
    storage: true
    selectableFields: [{jsonPath: .spec.color}]
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string, default: blue}
              parts:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    count: {type: integer}
`;

describe('a cluster-scoped CRD with two versions', () => {
  test('served at both versions (conversion None), selectors, server-side apply by the structural schema', async () => {
    ok(await k(['apply', '-f', '-'], GADGETS));
    await eventually('gadgets to be served', async () => (await k(['get', 'gadgets.v1beta1.tools.example.com'])).code === 0);
    const applied = `apiVersion: tools.example.com/v1beta1
kind: Gadget
metadata: {name: g1, labels: {tier: top}}
spec:
  parts: [{name: a, count: 1}]
`;
    ok(await k(['apply', '--server-side', '--field-manager=alice', '-f', '-'], applied));
    ok(
      await k(
        ['apply', '--server-side', '--field-manager=bob', '-f', '-'],
        'apiVersion: tools.example.com/v1\nkind: Gadget\nmetadata: {name: g1}\nspec:\n  parts: [{name: b, count: 2}]\n',
      ),
    );
    // A keyed list (x-kubernetes-list-type: map): each manager owns its own item, both stay.
    const v1 = JSON.parse(ok(await k(['get', 'gadgets.v1.tools.example.com', 'g1', '-o', 'json']))) as {
      apiVersion: string;
      spec: { color: string; parts: { name: string }[] };
    };
    assert.equal(v1.apiVersion, 'tools.example.com/v1');
    assert.equal(v1.spec.color, 'blue');
    assert.deepEqual(v1.spec.parts.map((p) => p.name).sort(), ['a', 'b']);
    const beta = JSON.parse(ok(await k(['get', 'gadgets.v1beta1.tools.example.com', 'g1', '-o', 'json']))) as { apiVersion: string };
    assert.equal(beta.apiVersion, 'tools.example.com/v1beta1');
    fails(
      await k(
        ['apply', '--server-side', '--field-manager=carol', '-f', '-'],
        'apiVersion: tools.example.com/v1\nkind: Gadget\nmetadata: {name: g1}\nspec:\n  parts: [{name: a, count: 9}]\n',
      ),
      'Apply failed with 1 conflict: conflict with "alice": .spec.parts[name="a"].count',
    );
    ok(await k(['create', '-f', '-'], 'apiVersion: tools.example.com/v1\nkind: Gadget\nmetadata: {name: g2}\nspec: {}\n'));
    assert.equal(ok(await k(['get', 'gadgets', '-l', 'tier=top', '-o', 'name'])), 'gadget.tools.example.com/g1\n');
    assert.equal(ok(await k(['get', 'gadgets', '--field-selector', 'metadata.name=g2', '-o', 'name'])), 'gadget.tools.example.com/g2\n');
    ok(await k(['patch', 'gadget', 'g2', '--type=merge', '-p', '{"spec":{"color":"red"}}']));
    assert.equal(ok(await k(['get', 'gadgets', '--field-selector', 'spec.color=red', '-o', 'name'])), 'gadget.tools.example.com/g2\n');
    // A watch through the other version sees that version's apiVersion.
    const home = await homeFor(server.kubeconfig);
    const watch = spawn(kubectlBin, ['get', 'gadgets.v1beta1.tools.example.com', '-w', '-o', 'json'], {
      env: { ...process.env, HOME: home, KUBECONFIG: server.kubeconfig },
    });
    let seen = '';
    watch.stdout.on('data', (d: Buffer) => (seen += d.toString()));
    try {
      ok(await k(['label', 'gadget', 'g2', 'watched=yes']));
      await eventually('the v1beta1 watch to see the label', () => Promise.resolve(seen.includes('"watched": "yes"')), 15_000);
      assert.ok(seen.includes('"apiVersion": "tools.example.com/v1beta1"'), seen);
      assert.ok(!seen.includes('"apiVersion": "tools.example.com/v1"'), seen);
    } finally {
      watch.kill();
    }
    const deprecated = await k(['get', 'gadgets.v1beta1.tools.example.com', 'g1']);
    ok(deprecated);
    assert.match(deprecated.stderr, /Warning: tools\.example\.com\/v1beta1 Gadget is deprecated/);
    fails(
      await k(
        ['create', '-f', '-'],
        'apiVersion: tools.example.com/v1\nkind: Gadget\nmetadata: {name: g3}\nspec: {parts: [{name: x}, {name: x}]}\n',
      ),
      'spec.parts[1]: Duplicate value: map[string]interface {}{"name":"x"}',
    );
    ok(await k(['delete', 'crd', 'gadgets.tools.example.com']));
  });
});

describe('the controller-manager and custom resources (a whole cluster)', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster({ nodes: 1, speed: 10 });
  });
  after(() => c?.stop());

  test('the garbage collector follows ownerReferences to a custom resource; a deleted namespace takes its custom resources', async () => {
    ok(await c.k(['apply', '-f', '-'], CRD));
    await eventually('crontabs to be served', async () => (await c.k(['get', 'crontabs'])).code === 0);
    ok(await c.k(['create', 'namespace', 'jobs']));
    ok(await c.k(['-n', 'jobs', 'create', '-f', '-'], cronTab('owner', '  cronSpec: "* * * * *"\n')));
    const uid = ok(await c.k(['-n', 'jobs', 'get', 'crontab', 'owner', '-o', 'jsonpath={.metadata.uid}']));
    ok(
      await c.k(
        ['-n', 'jobs', 'create', '-f', '-'],
        `apiVersion: v1
kind: ConfigMap
metadata:
  name: owned
  ownerReferences: [{apiVersion: stable.example.com/v1, kind: CronTab, name: owner, uid: ${uid}}]
`,
      ),
    );
    ok(await c.k(['-n', 'jobs', 'delete', 'crontab', 'owner']));
    await eventually(
      'the garbage collector to delete the dependent of the custom resource',
      async () => (await c.k(['-n', 'jobs', 'get', 'configmap', 'owned'])).code !== 0,
      40_000,
    );
    ok(await c.k(['-n', 'jobs', 'create', '-f', '-'], cronTab('left', '  cronSpec: "* * * * *"\n')));
    // RBAC treats a custom resource as any other: the view role gains it through an aggregated ClusterRole.
    ok(await c.k(['-n', 'jobs', 'create', 'rolebinding', 'jane-view', '--clusterrole=view', '--user=jane']));
    const canList = () => c.k(['-n', 'jobs', 'auth', 'can-i', 'list', 'crontabs.stable.example.com', '--as=jane']);
    assert.equal((await canList()).stdout.trim(), 'no');
    ok(await c.k(['create', 'clusterrole', 'crontab-viewer', '--verb=get,list,watch', '--resource=crontabs.stable.example.com']));
    ok(await c.k(['label', 'clusterrole', 'crontab-viewer', 'rbac.authorization.k8s.io/aggregate-to-view=true']));
    await eventually('the view role to aggregate the custom resource', async () => (await canList()).stdout.trim() === 'yes', 20_000);
    assert.match(ok(await c.k(['-n', 'jobs', 'get', 'crontabs', '--as=jane'])), /^left\s/m);
    fails(
      await c.k(['-n', 'jobs', 'delete', 'crontab', 'left', '--as=jane']),
      'cannot delete resource "crontabs" in API group "stable.example.com"',
    );
    ok(await c.k(['delete', 'namespace', 'jobs', '--wait=false']));
    await eventually(
      'the namespace (and its custom resource) to go',
      async () => (await c.k(['get', 'namespace', 'jobs'])).code !== 0,
      40_000,
    );
    assert.equal(ok(await c.k(['get', 'crontabs', '-A', '-o', 'name'])), '');
  });
});
