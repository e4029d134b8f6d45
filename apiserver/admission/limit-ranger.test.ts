import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LimitRangeItem, Pod } from 'kubernetes-types/core/v1.js';
import { applyDefaults, claimViolations, podViolations } from './limit-ranger.ts';

const pod = (resources: object, name = 'nginx'): Pod => ({
  metadata: { name },
  spec: { containers: [{ name, image: 'nginx', resources }] },
});

test('defaults fill what a container leaves out, and say so in kube annotation', () => {
  const items: LimitRangeItem[] = [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' } }];
  const p = pod({ requests: { memory: '64Mi' } });
  const note = applyDefaults(p, items);
  assert.deepEqual(p.spec!.containers[0].resources, {
    requests: { memory: '64Mi', cpu: '100m' },
    limits: { cpu: '500m', memory: '256Mi' },
  });
  assert.equal(note, 'LimitRanger plugin set: cpu request for container nginx; cpu, memory limit for container nginx');
  // A default request follows the default limit, and max gives the default limit (LimitRange defaulting).
  const q = pod({});
  applyDefaults(q, [{ type: 'Container', max: { cpu: '1' } }]);
  assert.deepEqual(q.spec!.containers[0].resources, { limits: { cpu: '1' }, requests: { cpu: '1' } });
  assert.equal(applyDefaults(pod({}), [{ type: 'Pod', max: { cpu: '1' } }]), '');
});

test('min, max and ratio bounds, with kube messages', () => {
  const cases: Array<[string, LimitRangeItem[], Pod, string[]]> = [
    [
      'under min',
      [{ type: 'Container', min: { cpu: '100m' } }],
      pod({ requests: { cpu: '50m' } }),
      ['minimum cpu usage per Container is 100m, but request is 50m'],
    ],
    [
      'no request',
      [{ type: 'Container', min: { cpu: '100m' } }],
      pod({}),
      ['minimum cpu usage per Container is 100m.  No request is specified'],
    ],
    [
      'over max',
      [{ type: 'Container', max: { memory: '1Gi' } }],
      pod({ limits: { memory: '2Gi' } }),
      ['maximum memory usage per Container is 1Gi, but limit is 2Gi'],
    ],
    [
      'no limit',
      [{ type: 'Container', max: { memory: '1Gi' } }],
      pod({}),
      ['maximum memory usage per Container is 1Gi.  No limit is specified'],
    ],
    [
      'ratio',
      [{ type: 'Container', maxLimitRequestRatio: { cpu: '2' } }],
      pod({ requests: { cpu: '100m' }, limits: { cpu: '500m' } }),
      ['cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000'],
    ],
    [
      'pod totals',
      [{ type: 'Pod', max: { cpu: '1' } }],
      {
        metadata: { name: 'p' },
        spec: {
          containers: [
            { name: 'a', resources: { limits: { cpu: '600m' } } },
            { name: 'b', resources: { limits: { cpu: '600m' } } },
          ],
        },
      },
      ['maximum cpu usage per Pod is 1, but limit is 1200m'],
    ],
    [
      'within bounds',
      [{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' } }],
      pod({ requests: { cpu: '200m' }, limits: { cpu: '1' } }),
      [],
    ],
  ];
  for (const [why, items, p, want] of cases) assert.deepEqual(podViolations(p, items), want, why);
  assert.deepEqual(
    claimViolations({ spec: { resources: { requests: { storage: '5Gi' } } } }, [
      { type: 'PersistentVolumeClaim', max: { storage: '2Gi' } },
    ]),
    ['maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi'],
  );
});
