// `kubectl explain` with the real kubectl v1.35 against a ksim apiserver:
// field descriptions written for ksim (shared/api/schema/descriptions) come
// back through /openapi/v3 (the default) and /openapi/v2 (plaintext-openapiv2),
// for plain paths, --recursive and whole kinds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl as runKubectl, ok, startApiserver, type Apiserver } from './helpers/index.ts';
import { fieldDescription, typeDescription } from '../shared/api/schema/descriptions/index.ts';

let server: Apiserver;
before(async () => {
  server = await startApiserver();
});
after(() => server?.stop());

const explain = async (...args: string[]): Promise<string> => ok(await runKubectl(['explain', ...args], { kubeconfig: server.kubeconfig }));

/** kubectl wraps descriptions to its terminal width: compare with whitespace collapsed. */
const flat = (s: string): string => s.replace(/\s+/g, ' ');
function includesText(out: string, text: string | undefined): void {
  assert.ok(text, 'no description to look for');
  assert.ok(flat(out).includes(flat(text)), `expected:\n${text}\nin:\n${out}`);
}

const CORE = 'io.k8s.api.core.v1';
const APPS = 'io.k8s.api.apps.v1';

describe('kubectl explain (openapi v3)', () => {
  test('a field that is a struct: its description and its own fields with theirs', async () => {
    const out = await explain('pod.spec.containers.livenessProbe');
    assert.match(out, /^KIND:\s+Pod$/m);
    assert.match(out, /^FIELD:\s+livenessProbe <Probe>$/m);
    includesText(out, fieldDescription(`${CORE}.Container`, 'livenessProbe'));
    assert.match(out, /^FIELDS:$/m);
    assert.match(out, /^ {2}httpGet\t<HTTPGetAction>$/m);
    includesText(out, fieldDescription(`${CORE}.Probe`, 'periodSeconds'));
    includesText(out, fieldDescription(`${CORE}.Probe`, 'failureThreshold'));
  });

  test('a scalar field with enum values', async () => {
    const out = await explain('deployment.spec.strategy.type');
    assert.match(out, /^GROUP:\s+apps$/m);
    includesText(out, fieldDescription(`${APPS}.DeploymentStrategy`, 'type'));
    assert.match(out, /ENUM:\s+Recreate\s+RollingUpdate/);
  });

  test('a kind: its description and the descriptions of its top-level fields', async () => {
    const out = await explain('service');
    assert.match(out, /^DESCRIPTION:$/m);
    includesText(out, typeDescription(`${CORE}.Service`));
    includesText(out, fieldDescription(`${CORE}.Service`, 'spec'));
    includesText(out, fieldDescription(`${CORE}.Service`, 'apiVersion'));
  });

  test('--recursive lists the tree below a field', async () => {
    const out = await explain('deployment.spec.strategy', '--recursive');
    includesText(out, fieldDescription(`${APPS}.DeploymentSpec`, 'strategy'));
    assert.match(out, /^ {2}rollingUpdate\t<RollingUpdateDeployment>$/m);
    assert.match(out, /^ {4}maxSurge\t<IntOrString>$/m);
    assert.match(out, /^ {4}maxUnavailable\t<IntOrString>$/m);
    assert.match(out, /^ {2}type\t<string>$/m);
  });

  test('descriptions reach fields deep in other learner kinds', async () => {
    includesText(await explain('cronjob.spec.concurrencyPolicy'), fieldDescription('io.k8s.api.batch.v1.CronJobSpec', 'concurrencyPolicy'));
    includesText(
      await explain('networkpolicy.spec.podSelector'),
      fieldDescription('io.k8s.api.networking.v1.NetworkPolicySpec', 'podSelector'),
    );
    includesText(await explain('pvc.spec.accessModes'), fieldDescription(`${CORE}.PersistentVolumeClaimSpec`, 'accessModes'));
    includesText(await explain('clusterrole.rules.verbs'), fieldDescription('io.k8s.api.rbac.v1.PolicyRule', 'verbs'));
  });
});

describe('kubectl explain --output=plaintext-openapiv2 (openapi v2)', () => {
  test('a field that is a struct, and its fields', async () => {
    const out = await explain('pod.spec.containers.livenessProbe', '--output=plaintext-openapiv2');
    assert.match(out, /^RESOURCE:\s+livenessProbe <Object>$/m);
    includesText(out, fieldDescription(`${CORE}.Container`, 'livenessProbe'));
    includesText(out, typeDescription(`${CORE}.Probe`));
    includesText(out, fieldDescription(`${CORE}.Probe`, 'timeoutSeconds'));
  });

  test('--recursive and a kind', async () => {
    const out = await explain('deployment.spec.strategy', '--recursive', '--output=plaintext-openapiv2');
    includesText(out, fieldDescription(`${APPS}.DeploymentSpec`, 'strategy'));
    assert.match(out, /^ {6}maxSurge\t<string>$/m);
    const kind = await explain('configmap', '--output=plaintext-openapiv2');
    includesText(kind, typeDescription(`${CORE}.ConfigMap`));
    includesText(kind, fieldDescription(`${CORE}.ConfigMap`, 'data'));
  });
});
