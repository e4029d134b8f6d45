// Table tests of when the TTL-after-finished controller deletes a Job.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from 'kubernetes-types/batch/v1.js';
import { decide } from './plan.ts';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const finished = (type: string, secondsAgo: number, ttl: number | undefined, extra: Partial<Job['metadata']> = {}): Job => ({
  metadata: { name: 'pi', namespace: 'default', ...extra },
  spec: { template: {}, ...(ttl === undefined ? {} : { ttlSecondsAfterFinished: ttl }) },
  status: { conditions: [{ type, status: 'True', lastTransitionTime: new Date(NOW - secondsAgo * 1000).toISOString() }] },
});

const cases: [string, Job, number, ReturnType<typeof decide>][] = [
  ['no TTL: kept', finished('Complete', 100, undefined), 1, { kind: 'ignore' }],
  [
    'not finished: kept',
    { metadata: { name: 'pi' }, spec: { template: {}, ttlSecondsAfterFinished: 0 }, status: {} },
    1,
    { kind: 'ignore' },
  ],
  ['complete, TTL 0: deleted', finished('Complete', 0, 0), 1, { kind: 'delete' }],
  ['failed, TTL passed: deleted', finished('Failed', 31, 30), 1, { kind: 'delete' }],
  ['TTL not passed: wait the rest', finished('Complete', 10, 30), 1, { kind: 'wait', ms: 20_000 }],
  ['speed 10 divides the TTL', finished('Complete', 2, 30), 10, { kind: 'wait', ms: 1000 }],
  ['speed 10: 30 s pass in 3', finished('Complete', 3, 30), 10, { kind: 'delete' }],
  ['being deleted: left alone', finished('Complete', 100, 0, { deletionTimestamp: '2026-01-01T00:00:00Z' }), 1, { kind: 'ignore' }],
  [
    'Complete=False does not count',
    { ...finished('Complete', 100, 0), status: { conditions: [{ type: 'Complete', status: 'False' }] } },
    1,
    { kind: 'ignore' },
  ],
];
for (const [what, job, speed, want] of cases) test(what, () => assert.deepEqual(decide(job, NOW, speed), want));
