// Table tests of the Service environment variables (kube's pkg/kubelet/envvars FromServices).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import { serviceEnv, serviceVars } from './service-env.ts';

const svc = (name: string, ns: string, clusterIP: string, ports: NonNullable<Service['spec']>['ports']): Service => ({
  metadata: { name, namespace: ns },
  spec: { clusterIP, ports },
});

test('serviceVars: host, port, named ports and the Docker link variables', () => {
  assert.deepEqual(
    Object.fromEntries(
      serviceVars(svc('my-web', 'default', '10.96.12.3', [{ port: 80 }, { name: 'metrics', port: 9090, protocol: 'UDP' }])),
    ),
    {
      MY_WEB_SERVICE_HOST: '10.96.12.3',
      MY_WEB_SERVICE_PORT: '80',
      MY_WEB_SERVICE_PORT_METRICS: '9090',
      MY_WEB_PORT: 'tcp://10.96.12.3:80',
      MY_WEB_PORT_80_TCP: 'tcp://10.96.12.3:80',
      MY_WEB_PORT_80_TCP_PROTO: 'tcp',
      MY_WEB_PORT_80_TCP_PORT: '80',
      MY_WEB_PORT_80_TCP_ADDR: '10.96.12.3',
      MY_WEB_PORT_9090_UDP: 'udp://10.96.12.3:9090',
      MY_WEB_PORT_9090_UDP_PROTO: 'udp',
      MY_WEB_PORT_9090_UDP_PORT: '9090',
      MY_WEB_PORT_9090_UDP_ADDR: '10.96.12.3',
    },
  );
  assert.deepEqual(serviceVars(svc('headless', 'default', 'None', [{ port: 80 }])), []);
});

test('serviceEnv: the namespace Services under enableServiceLinks, the kubernetes Service always', () => {
  const services = [svc('web', 'lab', '10.96.0.20', [{ port: 80 }]), svc('other', 'elsewhere', '10.96.0.21', [{ port: 81 }])];
  const pod = (enableServiceLinks?: boolean): Pod => ({
    metadata: { name: 'p', namespace: 'lab' },
    spec: { containers: [], enableServiceLinks },
  });
  const on = serviceEnv(pod(), services, undefined);
  assert.equal(on.get('WEB_SERVICE_HOST'), '10.96.0.20');
  assert.equal(on.get('WEB_PORT_80_TCP_ADDR'), '10.96.0.20');
  assert.equal(on.get('OTHER_SERVICE_HOST'), undefined);
  assert.equal(on.get('KUBERNETES_SERVICE_HOST'), '10.96.0.1');
  assert.equal(on.get('KUBERNETES_SERVICE_PORT_HTTPS'), '443');
  assert.equal(on.get('KUBERNETES_PORT_443_TCP'), 'tcp://10.96.0.1:443');
  const off = serviceEnv(pod(false), services, undefined);
  assert.equal(off.get('WEB_SERVICE_HOST'), undefined);
  assert.equal(off.get('KUBERNETES_SERVICE_HOST'), '10.96.0.1');
});
