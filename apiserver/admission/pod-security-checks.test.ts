import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PodSpec } from 'kubernetes-types/core/v1.js';
import { describeFailures, evaluatePod, type Level } from './pod-security-checks.ts';

const restrictedContainer = {
  name: 'c',
  image: 'nginx',
  securityContext: {
    allowPrivilegeEscalation: false,
    runAsNonRoot: true,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  },
};

const cases: Array<[string, Level, PodSpec, string]> = [
  ['a plain pod passes baseline', 'baseline', { containers: [{ name: 'c', image: 'nginx' }] }, ''],
  [
    'privileged level checks nothing',
    'privileged',
    { hostNetwork: true, containers: [{ name: 'c', securityContext: { privileged: true } }] },
    '',
  ],
  [
    'a plain pod fails restricted, in kube order and words',
    'restricted',
    { containers: [{ name: 'nginx', image: 'nginx' }] },
    'allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), ' +
      'unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), ' +
      'runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), ' +
      'seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  ],
  ['a restricted pod passes', 'restricted', { containers: [restrictedContainer] }, ''],
  [
    'pod-level runAsNonRoot and seccomp cover the containers',
    'restricted',
    {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{ name: 'c', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
    },
    '',
  ],
  [
    'host namespaces, privileged, hostPath and hostPorts at baseline',
    'baseline',
    {
      hostNetwork: true,
      hostPID: true,
      volumes: [{ name: 'h', hostPath: { path: '/' } }],
      containers: [
        { name: 'a', securityContext: { privileged: true }, ports: [{ containerPort: 80, hostPort: 80 }] },
        { name: 'b', securityContext: { privileged: true } },
      ],
    },
    'host namespaces (hostNetwork=true, hostPID=true), hostPath volumes (volume "h"), hostPort (container "a" uses hostPort 80), ' +
      'privileged (containers "a", "b" must not set securityContext.privileged=true)',
  ],
  [
    'capabilities beyond the default set',
    'baseline',
    { containers: [{ name: 'c', securityContext: { capabilities: { add: ['NET_ADMIN', 'CHOWN', 'SYS_TIME'] } } }] },
    'non-default capabilities (container "c" must not include "NET_ADMIN", "SYS_TIME" in securityContext.capabilities.add)',
  ],
  [
    'restricted volume types replace the hostPath check',
    'restricted',
    {
      volumes: [
        { name: 'h', hostPath: { path: '/' } },
        { name: 'e', emptyDir: {} },
      ],
      containers: [restrictedContainer],
    },
    'restricted volume types (volume "h" uses restricted volume type "hostPath")',
  ],
  [
    'sysctls and seccomp Unconfined',
    'baseline',
    {
      securityContext: {
        sysctls: [
          { name: 'kernel.msgmax', value: '1' },
          { name: 'net.ipv4.tcp_syncookies', value: '1' },
        ],
        seccompProfile: { type: 'Unconfined' },
      },
      containers: [{ name: 'c' }],
    },
    'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined"), forbidden sysctls (kernel.msgmax)',
  ],
  [
    'runAsUser=0 and an added capability at restricted',
    'restricted',
    {
      securityContext: { runAsUser: 0 },
      containers: [
        {
          ...restrictedContainer,
          securityContext: { ...restrictedContainer.securityContext, capabilities: { drop: ['ALL'], add: ['SYS_TIME'] } },
        },
      ],
    },
    'unrestricted capabilities (container "c" must not include "SYS_TIME" in securityContext.capabilities.add), runAsUser=0 (pod must not set runAsUser=0)',
  ],
];

test('Pod Security Standards checks, as kube words them', () => {
  for (const [why, level, spec, want] of cases) assert.equal(describeFailures(evaluatePod(level, {}, spec)), want, why);
});
