import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { patchServiceAllocatedValues } from './service.ts';
import { defaulted, invalidMessage } from './testing.ts';

const svc = (spec: any) => ({ metadata: { name: 'web', namespace: 'default' }, spec });

describe('Service defaults', () => {
  it('ClusterIP', () => {
    assert.deepEqual(defaulted('/services', svc({ selector: { app: 'web' }, ports: [{ port: 80 }] })).spec, {
      selector: { app: 'web' },
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
      sessionAffinity: 'None',
      type: 'ClusterIP',
      internalTrafficPolicy: 'Cluster',
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
    });
  });
  it('LoadBalancer', () => {
    const s = defaulted('/services', svc({ type: 'LoadBalancer', ports: [{ port: 443, targetPort: 'https' }] })).spec;
    assert.equal(s.externalTrafficPolicy, 'Cluster');
    assert.equal(s.allocateLoadBalancerNodePorts, true);
    assert.equal(s.ports[0].targetPort, 'https');
  });
  it('ClientIP affinity gets its timeout', () => {
    assert.deepEqual(defaulted('/services', svc({ sessionAffinity: 'ClientIP', ports: [{ port: 80 }] })).spec.sessionAffinityConfig, {
      clientIP: { timeoutSeconds: 10800 },
    });
  });
  it('ExternalName gets no traffic policy or IP families', () => {
    assert.deepEqual(defaulted('/services', svc({ type: 'ExternalName', externalName: 'example.com' })).spec, {
      type: 'ExternalName',
      externalName: 'example.com',
      sessionAffinity: 'None',
    });
  });
  it('headless without selector requires dual stack', () => {
    const s = defaulted('/services', svc({ clusterIP: 'None', ports: [{ port: 80 }] })).spec;
    assert.deepEqual([s.clusterIPs, s.ipFamilyPolicy, s.ipFamilies], [['None'], 'RequireDualStack', ['IPv4']]);
  });
  it('update keeps allocated values', () => {
    const old = defaulted('/services', svc({ type: 'NodePort', clusterIP: '10.96.0.10', ports: [{ port: 80, nodePort: 30080 }] }));
    const next = svc({ type: 'NodePort', ports: [{ port: 80 }] });
    patchServiceAllocatedValues(next, old);
    assert.deepEqual([next.spec.clusterIP, next.spec.clusterIPs, next.spec.ports[0].nodePort], ['10.96.0.10', ['10.96.0.10'], 30080]);
  });
});

describe('Service validation', () => {
  const M = (spec: any, old?: any) => invalidMessage('/services', 'Service', '', svc(spec), old);
  const cases: [string, any, string][] = [
    ['valid', { ports: [{ port: 80 }] }, ''],
    ['no ports', {}, 'Service "web" is invalid: spec.ports: Required value'],
    ['headless needs no ports', { clusterIP: 'None' }, ''],
    [
      'unnamed ports',
      { ports: [{ port: 80 }, { port: 443 }] },
      'Service "web" is invalid: [spec.ports[0].name: Required value, spec.ports[1].name: Required value]',
    ],
    [
      'duplicate port names',
      {
        ports: [
          { name: 'a', port: 80 },
          { name: 'a', port: 81 },
        ],
      },
      'Service "web" is invalid: spec.ports[1].name: Duplicate value: "a"',
    ],
    [
      'port range',
      { ports: [{ port: 0, targetPort: 80 }] },
      'Service "web" is invalid: spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
    ],
    [
      'duplicate port',
      {
        ports: [
          { name: 'a', port: 80 },
          { name: 'b', port: 80 },
        ],
      },
      'Service "web" is invalid: spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
    ],
    [
      'nodePort on ClusterIP',
      { ports: [{ port: 80, nodePort: 30001 }] },
      'Service "web" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is \'ClusterIP\'',
    ],
    [
      'nodePort out of range',
      { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] },
      'Service "web" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767',
    ],
    ['ExternalName without name', { type: 'ExternalName' }, 'Service "web" is invalid: spec.externalName: Required value'],
    [
      'bad type',
      { type: 'Magic', ports: [{ port: 80 }] },
      'Service "web" is invalid: spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    ],
    [
      'externalTrafficPolicy on ClusterIP',
      { externalTrafficPolicy: 'Local', ports: [{ port: 80 }] },
      'Service "web" is invalid: spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services',
    ],
    [
      'bad targetPort name',
      { ports: [{ port: 80, targetPort: 'HTTP_PORT' }] },
      'Service "web" is invalid: [spec.ports[0].targetPort: Invalid value: "HTTP_PORT": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-), spec.ports[0].targetPort: Invalid value: "HTTP_PORT": must contain at least one letter (a-z)]',
    ],
  ];
  for (const [name, spec, want] of cases) it(name, () => assert.equal(M(spec), want));

  it('clusterIP may not change', () => {
    const old = defaulted('/services', svc({ clusterIP: '10.96.0.10', ports: [{ port: 80 }] }));
    assert.equal(
      M({ clusterIP: '10.96.0.11', clusterIPs: ['10.96.0.11'], ports: [{ port: 80 }] }, old),
      'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.0.11"}: may not change once set',
    );
  });
});
