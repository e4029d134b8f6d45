import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted, invalidMessage } from './testing.ts';

const hook = (extra: any = {}) => ({
  name: 'check.example.com',
  clientConfig: { service: { namespace: 'ns', name: 'svc' } },
  rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...extra,
});
const vwc = (...webhooks: any[]) => ({ metadata: { name: 'w' }, webhooks });

describe('webhook configurations', () => {
  it("kube's v1 defaults", () => {
    const v = defaulted('admissionregistration.k8s.io/validatingwebhookconfigurations', vwc(hook())).webhooks[0];
    assert.deepEqual(
      [
        v.failurePolicy,
        v.matchPolicy,
        v.timeoutSeconds,
        v.namespaceSelector,
        v.objectSelector,
        v.rules[0].scope,
        v.clientConfig.service.port,
      ],
      ['Fail', 'Equivalent', 10, {}, {}, '*', 443],
    );
    assert.equal(v.reinvocationPolicy, undefined);
    const m = defaulted('admissionregistration.k8s.io/mutatingwebhookconfigurations', vwc(hook())).webhooks[0];
    assert.equal(m.reinvocationPolicy, 'Never');
  });
  const M = (o: any) =>
    invalidMessage(
      'admissionregistration.k8s.io/validatingwebhookconfigurations',
      'ValidatingWebhookConfiguration',
      'admissionregistration.k8s.io',
      o,
    );
  const cases: [string, any, string][] = [
    ['valid', vwc(hook()), ''],
    [
      'no sideEffects, no review versions',
      vwc(hook({ sideEffects: undefined, admissionReviewVersions: undefined })),
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "w" is invalid: [webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun, webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1]',
    ],
    [
      'both url and service',
      vwc(hook({ clientConfig: { url: 'https://a.example.com', service: { namespace: 'n', name: 's' } } })),
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "w" is invalid: webhooks[0].clientConfig: Required value: exactly one of url or service is required',
    ],
    [
      'short name, duplicate, bad side effects, timeout',
      vwc(hook({ name: 'a.b' }), hook({ name: 'a.b', sideEffects: 'Some', timeoutSeconds: 31 })),
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "w" is invalid: [webhooks[0].name: Invalid value: "a.b": should be a domain with at least three segments separated by dots, webhooks[1].name: Duplicate value: "a.b", webhooks[1].name: Invalid value: "a.b": should be a domain with at least three segments separated by dots, webhooks[1].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun", webhooks[1].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds]',
    ],
    [
      'unknown review version only',
      vwc(hook({ admissionReviewVersions: ['v2'] })),
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "w" is invalid: webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
    ],
  ];
  for (const [name, obj, want] of cases) it(name, () => assert.equal(M(obj), want));
});

describe('RuntimeClass', () => {
  const M = (o: any, old?: any) => invalidMessage('node.k8s.io/runtimeclasses', 'RuntimeClass', 'node.k8s.io', o, old);
  it('handler is a DNS label, immutable', () => {
    assert.equal(M({ metadata: { name: 'r' }, handler: 'runc' }), '');
    assert.match(
      M({ metadata: { name: 'r' }, handler: 'Run_C' }),
      /^RuntimeClass.node.k8s.io "r" is invalid: handler: Invalid value: "Run_C": a lowercase RFC 1123 label must consist of/,
    );
    assert.equal(
      M({ metadata: { name: 'r' }, handler: 'runsc' }, { metadata: { name: 'r' }, handler: 'runc' }),
      'RuntimeClass.node.k8s.io "r" is invalid: handler: Invalid value: "runsc": field is immutable',
    );
  });
});

describe('storage kinds', () => {
  it("CSIDriver gets kube's defaults", () => {
    assert.deepEqual(defaulted('storage.k8s.io/csidrivers', { metadata: { name: 'd.example.com' } }).spec, {
      attachRequired: true,
      podInfoOnMount: false,
      storageCapacity: false,
      fsGroupPolicy: 'ReadWriteOnceWithFSType',
      volumeLifecycleModes: ['Persistent'],
      requiresRepublish: false,
      seLinuxMount: false,
    });
  });
  const cases: [string, string, string, any, string][] = [
    [
      'VolumeAttachment without attacher or source',
      'storage.k8s.io/volumeattachments',
      'VolumeAttachment',
      { metadata: { name: 'va' }, spec: { nodeName: 'n1', source: {} } },
      'VolumeAttachment.storage.k8s.io "va" is invalid: [spec.attacher: Required value, spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName]',
    ],
    [
      'VolumeAttachment with both sources',
      'storage.k8s.io/volumeattachments',
      'VolumeAttachment',
      { metadata: { name: 'va' }, spec: { attacher: 'a.b', nodeName: 'n1', source: { persistentVolumeName: 'p', inlineVolumeSpec: {} } } },
      'VolumeAttachment.storage.k8s.io "va" is invalid: spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
    ],
    [
      'CSINode driver without node ID',
      'storage.k8s.io/csinodes',
      'CSINode',
      { metadata: { name: 'n' }, spec: { drivers: [{ name: 'd.example.com' }] } },
      'CSINode.storage.k8s.io "n" is invalid: spec.drivers[0].nodeID: Required value: nodeID must be provided',
    ],
    [
      'VolumeAttributesClass without parameters',
      'storage.k8s.io/volumeattributesclasses',
      'VolumeAttributesClass',
      { metadata: { name: 'v' }, driverName: 'd.example.com' },
      'VolumeAttributesClass.storage.k8s.io "v" is invalid: parameters: Required value: must contain at least one key/value pair',
    ],
  ];
  for (const [name, key, kind, obj, want] of cases) it(name, () => assert.equal(invalidMessage(key, kind, 'storage.k8s.io', obj), want));
});

describe('PodTemplate and APIService', () => {
  it('a template needs containers', () => {
    assert.equal(
      invalidMessage('/podtemplates', 'PodTemplate', '', { metadata: { name: 't' }, template: { spec: { containers: [] } } }),
      'PodTemplate "t" is invalid: template.spec.containers: Required value',
    );
  });
  it('an APIService is named version.group, with priorities in range', () => {
    const svc = (name: string, spec: any) =>
      invalidMessage('apiregistration.k8s.io/apiservices', 'APIService', 'apiregistration.k8s.io', { metadata: { name }, spec });
    assert.equal(svc('v1.apps', { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 }), '');
    assert.equal(
      svc('v1.app', { group: 'apps', version: 'v1', groupPriorityMinimum: 0, versionPriority: 15 }),
      'APIService.apiregistration.k8s.io "v1.app" is invalid: [metadata.name: Invalid value: "v1.app": must be `spec.version+"."+spec.group`, spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000]',
    );
  });
});

describe('ServiceCIDR and IPAddress', () => {
  const C = (spec: any, old?: any) =>
    invalidMessage(
      'networking.k8s.io/servicecidrs',
      'ServiceCIDR',
      'networking.k8s.io',
      { metadata: { name: 'c' }, spec },
      old && { metadata: { name: 'c' }, spec: old },
    );
  const A = (name: string, spec: any) =>
    invalidMessage('networking.k8s.io/ipaddresses', 'IPAddress', 'networking.k8s.io', { metadata: { name }, spec });
  const cases: [string, string, string][] = [
    ['valid range', C({ cidrs: ['10.100.0.0/16'] }), ''],
    ['no range', C({}), 'ServiceCIDR.networking.k8s.io "c" is invalid: spec.cidrs: Required value: at least one CIDR required'],
    [
      'bad range',
      C({ cidrs: ['10.100.0.0/40'] }),
      'ServiceCIDR.networking.k8s.io "c" is invalid: spec.cidrs[0]: Invalid value: "10.100.0.0/40": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ],
    [
      'changed range',
      C({ cidrs: ['10.101.0.0/16'] }, { cidrs: ['10.100.0.0/16'] }),
      'ServiceCIDR.networking.k8s.io "c" is invalid: spec.cidrs[0]: Invalid value: "10.101.0.0/16": field is immutable',
    ],
    ['an address of a service', A('10.96.0.10', { parentRef: { resource: 'services', namespace: 'kube-system', name: 'kube-dns' } }), ''],
    [
      'a name that is no address, no parent',
      A('ten', {}),
      'IPAddress.networking.k8s.io "ten" is invalid: [metadata.name: Invalid value: "ten": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), spec.parentRef: Required value]',
    ],
  ];
  for (const [name, got, want] of cases) it(name, () => assert.equal(got, want));
});
