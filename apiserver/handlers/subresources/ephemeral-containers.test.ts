import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EphemeralContainer, Pod } from 'kubernetes-types/core/v1.js';
import { validateEphemeralContainersUpdate } from './ephemeral-containers.ts';

const pod = (eph: EphemeralContainer[], extra: Partial<Pod['metadata']> = {}): Pod => ({
  metadata: { name: 'p', ...extra },
  spec: { containers: [{ name: 'app', image: 'nginx' }], initContainers: [{ name: 'init', image: 'busybox' }], ephemeralContainers: eph },
});
const dbg: EphemeralContainer = { name: 'dbg', image: 'busybox' };

const cases: [string, EphemeralContainer[], EphemeralContainer[], string[], Partial<Pod['metadata']>?][] = [
  ['an addition', [], [dbg], []],
  ['a second addition, the first kept', [dbg], [dbg, { name: 'two', image: 'busybox', targetContainerName: 'app' }], []],
  ['a target that is an init container', [], [{ ...dbg, targetContainerName: 'init' }], []],
  [
    'a target that does not exist',
    [],
    [{ ...dbg, targetContainerName: 'nope' }],
    ['spec.ephemeralContainers[0].targetContainerName: Not found: "nope"'],
  ],
  ['a name taken by a container', [], [{ name: 'app', image: 'busybox' }], ['spec.ephemeralContainers[0].name: Duplicate value: "app"']],
  ['two with one name', [], [dbg, { ...dbg }], ['spec.ephemeralContainers[1].name: Duplicate value: "dbg"']],
  ['no image', [], [{ name: 'dbg' }], ['spec.ephemeralContainers[0].image: Required value']],
  [
    'ports, a probe, resources and a lifecycle',
    [],
    [
      {
        ...dbg,
        ports: [{ containerPort: 80 }],
        readinessProbe: { tcpSocket: { port: 80 } },
        resources: { limits: { cpu: '1' } },
        lifecycle: { preStop: { exec: { command: ['x'] } } },
      },
    ],
    [
      'spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container',
      'spec.ephemeralContainers[0].readinessProbe: Forbidden: cannot be set for an Ephemeral Container',
      'spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container',
      'spec.ephemeralContainers[0].lifecycle: Forbidden: cannot be set for an Ephemeral Container',
    ],
  ],
  ['empty resources are Go zero values, allowed', [], [{ ...dbg, resources: {} }], []],
  [
    'a subPath mount',
    [],
    [{ ...dbg, volumeMounts: [{ name: 'v', mountPath: '/v', subPath: 'x' }] }],
    ['spec.ephemeralContainers[0].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container'],
  ],
  ['a removal', [dbg], [], ['spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed\n']],
  [
    'a change',
    [dbg],
    [{ ...dbg, image: 'alpine' }],
    ['spec.ephemeralContainers[dbg]: Forbidden: existing ephemeral containers "dbg" may not be changed\n'],
  ],
  [
    'a static Pod',
    [],
    [dbg],
    [': Forbidden: static pods do not support ephemeral containers'],
    { annotations: { 'kubernetes.io/config.mirror': 'x' } },
  ],
];

test("ephemeral container updates are checked as kube's ValidatePodEphemeralContainersUpdate checks them", () => {
  for (const [name, before, after, want, meta] of cases) {
    const errs = validateEphemeralContainersUpdate(pod(after, meta), pod(before, meta));
    assert.deepEqual(
      errs.map((e) => e.message),
      want,
      name,
    );
  }
});
