import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalMicroTime, canonicalTime } from './misc.ts';
import { defaulted, invalidMessage } from './testing.ts';

const csrRequest = Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n').toString('base64');

describe('times', () => {
  it('MicroTime', () => assert.equal(canonicalMicroTime('2024-05-01T10:00:00+02:00'), '2024-05-01T08:00:00.000000Z'));
  it('MicroTime keeps microseconds', () =>
    assert.equal(canonicalMicroTime('2024-05-01T10:00:00.123456789Z'), '2024-05-01T10:00:00.123456Z'));
  it('Time', () => assert.equal(canonicalTime('2024-05-01T10:00:00.9Z'), '2024-05-01T10:00:00Z'));
});

describe('Namespace', () => {
  it('defaults', () =>
    assert.deepEqual(defaulted('/namespaces', { metadata: { name: 'team' } }), {
      metadata: { name: 'team', labels: { 'kubernetes.io/metadata.name': 'team' } },
      spec: { finalizers: ['kubernetes'] },
    }));
  it('finalizers', () =>
    assert.equal(
      invalidMessage('/namespaces', 'Namespace', '', { metadata: { name: 'team' }, spec: { finalizers: ['custom'] } }),
      'Namespace "team" is invalid: spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ));
});

describe('Node', () => {
  it('defaults podCIDRs and allocatable', () => {
    const n = defaulted('/nodes', {
      metadata: { name: 'n1' },
      spec: { podCIDR: '10.244.1.0/24' },
      status: { capacity: { cpu: '4', memory: '8192Mi' } },
    });
    assert.deepEqual(n.spec, { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'] });
    assert.deepEqual(n.status.allocatable, { cpu: '4', memory: '8Gi' });
  });
  it('podCIDR must be a CIDR', () =>
    assert.equal(
      invalidMessage('/nodes', 'Node', '', { metadata: { name: 'n1' }, spec: { podCIDR: '10.244.1.0' } }),
      'Node "n1" is invalid: spec.podCIDRs[0]: Invalid value: "10.244.1.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ));
  it('podCIDR is fixed once set', () => {
    const old = defaulted('/nodes', { metadata: { name: 'n1' }, spec: { podCIDR: '10.244.1.0/24' } });
    assert.equal(
      invalidMessage('/nodes', 'Node', '', { metadata: { name: 'n1' }, spec: { podCIDR: '10.244.2.0/24' } }, old),
      'Node "n1" is invalid: spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
    );
  });
  it('taint effect', () =>
    assert.equal(
      invalidMessage('/nodes', 'Node', '', { metadata: { name: 'n1' }, spec: { taints: [{ key: 'a', effect: 'Never' }] } }),
      'Node "n1" is invalid: metadata.taints[0].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ));
});

describe('Events', () => {
  it('core Event zero values', () => {
    const e = defaulted('/events', {
      metadata: { name: 'e', namespace: 'default' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
      reason: 'Started',
      firstTimestamp: '2024-05-01T10:00:00.5Z',
    });
    assert.deepEqual(
      [e.source, e.firstTimestamp, e.lastTimestamp, e.eventTime, e.reportingComponent, e.reportingInstance],
      [{}, '2024-05-01T10:00:00Z', null, null, '', ''],
    );
  });
  it('involvedObject namespace must match', () =>
    assert.equal(
      invalidMessage('/events', 'Event', '', {
        metadata: { name: 'e', namespace: 'default' },
        involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' },
      }),
      'Event "e" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    ));
  it('new-style core Events need the reporting fields', () =>
    assert.equal(
      invalidMessage('/events', 'Event', '', {
        metadata: { name: 'e', namespace: 'default' },
        involvedObject: { kind: 'Node', name: 'n' },
        eventTime: '2024-05-01T10:00:00Z',
        reason: 'R',
      }),
      `Event "e" is invalid: [reportingComponent: Required value, reportingComponent: Invalid value: "": name part must be non-empty, reportingComponent: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), reportingInstance: Required value, action: Required value]`,
    ));
  it('events.k8s.io Events are strict', () =>
    assert.equal(
      invalidMessage('events.k8s.io/events', 'Event', 'events.k8s.io', {
        metadata: { name: 'e', namespace: 'default' },
        regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
        reason: 'Started',
        action: 'Start',
        reportingController: 'example.com/ctl',
        reportingInstance: 'ctl-1',
        type: 'Odd',
      }),
      'Event.events.k8s.io "e" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: Odd]',
    ));
});

describe('Lease', () => {
  it('canonical times', () => {
    const l = defaulted('coordination.k8s.io/leases', {
      metadata: { name: 'l' },
      spec: { holderIdentity: 'a', renewTime: '2024-05-01T10:00:00Z' },
    });
    assert.equal(l.spec.renewTime, '2024-05-01T10:00:00.000000Z');
  });
  it('duration', () =>
    assert.equal(
      invalidMessage('coordination.k8s.io/leases', 'Lease', 'coordination.k8s.io', {
        metadata: { name: 'l' },
        spec: { leaseDurationSeconds: 0 },
      }),
      'Lease.coordination.k8s.io "l" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
    ));
});

describe('PodDisruptionBudget', () => {
  const pdb = (spec: any) => ({ metadata: { name: 'pdb', namespace: 'default' }, spec, status: {} });
  it('status zeros', () =>
    assert.deepEqual(defaulted('policy/poddisruptionbudgets', pdb({ minAvailable: 1 })).status, {
      disruptionsAllowed: 0,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 0,
    }));
  it('minAvailable and maxUnavailable are exclusive', () =>
    assert.ok(
      invalidMessage(
        'policy/poddisruptionbudgets',
        'PodDisruptionBudget',
        'policy',
        pdb({ minAvailable: 1, maxUnavailable: 1 }),
      ).startsWith('PodDisruptionBudget.policy "pdb" is invalid: spec: Invalid value: policy.PodDisruptionBudgetSpec{'),
    ));
  it('percent over 100', () =>
    assert.equal(
      invalidMessage('policy/poddisruptionbudgets', 'PodDisruptionBudget', 'policy', pdb({ maxUnavailable: '120%' })),
      'PodDisruptionBudget.policy "pdb" is invalid: spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}: must not be greater than 100%',
    ));
});

describe('ResourceQuota and LimitRange', () => {
  it('quota quantities are canonical', () =>
    assert.deepEqual(
      defaulted('/resourcequotas', { metadata: { name: 'q' }, spec: { hard: { 'requests.cpu': '0.5', pods: '10' } } }).spec.hard,
      { 'requests.cpu': '500m', pods: '10' },
    ));
  it('quota resource names', () =>
    assert.equal(
      invalidMessage('/resourcequotas', 'ResourceQuota', '', { metadata: { name: 'q' }, spec: { hard: { widgets: '1', pods: '1.5' } } }),
      'ResourceQuota "q" is invalid: [spec.hard[pods]: Invalid value: "1500m": must be an integer, spec.hard[widgets]: Invalid value: "widgets": must be a standard resource type or fully qualified, spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota]',
    ));
  it('limit range container defaults', () => {
    const lr = defaulted('/limitranges', {
      metadata: { name: 'l' },
      spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } }] },
    });
    assert.deepEqual(lr.spec.limits[0], {
      type: 'Container',
      max: { cpu: '2' },
      min: { memory: '64Mi' },
      default: { cpu: '2' },
      defaultRequest: { cpu: '2', memory: '64Mi' },
    });
  });
  it('limit range min over max', () =>
    assert.equal(
      invalidMessage('/limitranges', 'LimitRange', '', {
        metadata: { name: 'l' },
        spec: { limits: [{ type: 'Pod', max: { cpu: '1' }, min: { cpu: '2' } }] },
      }),
      'LimitRange "l" is invalid: spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
    ));
});

describe('CertificateSigningRequest', () => {
  const csr = (spec: any) => ({ metadata: { name: 'c' }, spec });
  const M = (spec: any) =>
    invalidMessage('certificates.k8s.io/certificatesigningrequests', 'CertificateSigningRequest', 'certificates.k8s.io', csr(spec));
  it('valid', () =>
    assert.equal(M({ request: csrRequest, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] }), ''));
  it('request and signerName required', () =>
    assert.equal(
      M({ usages: ['client auth'] }),
      'CertificateSigningRequest.certificates.k8s.io "c" is invalid: [spec.request: Invalid value: []byte(nil): PEM block type must be CERTIFICATE REQUEST, spec.signerName: Required value]',
    ));
  it('usages', () =>
    assert.equal(
      M({ request: csrRequest, signerName: 'example.com/signer', usages: [] }),
      'CertificateSigningRequest.certificates.k8s.io "c" is invalid: spec.usages: Required value',
    ));
  it('signerName form', () =>
    assert.equal(
      M({ request: csrRequest, signerName: 'signer', usages: ['server auth'] }),
      'CertificateSigningRequest.certificates.k8s.io "c" is invalid: spec.signerName: Invalid value: "signer": must be a fully qualified domain and path of the form \'example.com/signer-name\'',
    ));
});
