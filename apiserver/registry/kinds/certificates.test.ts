import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  applyApproval,
  populateConditionTimestamps,
  prepareCSRCreate,
  validateConditions,
  validateCSRUpdate,
  validateCSRWrite,
} from './certificates.ts';

const spec = { request: 'x', signerName: 'example.com/s', usages: ['client auth'] };
const csr = (conditions?: any[], extra: any = {}) => ({
  metadata: { name: 'c' },
  spec,
  status: { ...(conditions ? { conditions } : {}), ...extra },
});
const approved = { type: 'Approved', status: 'True', reason: 'R', lastUpdateTime: '2020-01-01T00:00:00Z' };
const denied = { type: 'Denied', status: 'True' };
const failed = { type: 'Failed', status: 'True' };
const messages = (errs: { message: string }[]) => errs.map((e) => e.message);

test('conditions: type and status required, True only for Approved/Denied/Failed, mutually exclusive, no duplicates', () => {
  const cases: [string, any[], string[]][] = [
    ['none', [], []],
    ['approved', [approved], []],
    ['any status for other types', [{ type: 'Custom', status: 'Unknown' }], []],
    ['empty type and status', [{}], ['status.conditions[0].type: Required value', 'status.conditions[0].status: Required value']],
    [
      'Denied False',
      [{ type: 'Denied', status: 'False' }],
      ['status.conditions[0].status: Unsupported value: "False": supported values: "True"'],
    ],
    [
      'other type, bad status',
      [{ type: 'X', status: 'Maybe' }],
      ['status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"'],
    ],
    ['both', [approved, denied], ['status.conditions: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive']],
    [
      'both, denied first',
      [denied, approved],
      ['status.conditions: Invalid value: "Approved": Approved and Denied conditions are mutually exclusive'],
    ],
    ['twice', [failed, failed], ['status.conditions[1].type: Duplicate value: "Failed"']],
  ];
  for (const [name, conds, want] of cases) assert.deepEqual(messages(validateConditions(csr(conds))), want, name);
});

test('conditions: bad data already stored is tolerated on update', () => {
  assert.deepEqual(validateConditions(csr([approved, denied]), csr([approved, denied])), []);
  assert.deepEqual(validateConditions(csr([failed, failed]), csr([failed, failed])), []);
  assert.deepEqual(validateConditions(csr([{ status: 'True' }]), csr([{ status: 'True' }])), []);
});

test('update paths: who may add, change or remove which condition, and set the certificate', () => {
  const FORBID_ADD = 'status.conditions: Forbidden: updates may not add a condition of type "Approved"';
  const cases: { name: string; old: any; next: any; path: any; want: (string | RegExp)[] }[] = [
    { name: 'approval adds Approved', old: csr(), next: csr([approved]), path: { approval: true }, want: [] },
    { name: 'status adds Approved', old: csr(), next: csr([approved]), path: { certificate: true }, want: [FORBID_ADD] },
    { name: 'main adds Approved', old: csr(), next: csr([approved]), path: {}, want: [FORBID_ADD] },
    {
      name: 'status changes Approved',
      old: csr([approved]),
      next: csr([{ ...approved, reason: 'Other' }]),
      path: { certificate: true },
      want: [/^status\.conditions: Forbidden: updates may not modify a condition of type "Approved"\n/],
    },
    {
      name: 'approval changes Approved',
      old: csr([approved]),
      next: csr([{ ...approved, reason: 'Other' }]),
      path: { approval: true },
      want: [],
    },
    { name: 'status adds Failed', old: csr([approved]), next: csr([approved, failed]), path: { certificate: true }, want: [] },
    {
      name: 'approval removes Approved',
      old: csr([approved]),
      next: csr([]),
      path: { approval: true },
      want: ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"'],
    },
    {
      name: 'status removes Failed',
      old: csr([failed]),
      next: csr([]),
      path: { certificate: true },
      want: ['status.conditions: Forbidden: updates may not remove a condition of type "Failed"'],
    },
    {
      name: 'approval sets a certificate',
      old: csr(),
      next: csr(undefined, { certificate: 'eA==' }),
      path: { approval: true },
      want: [/^status\.certificate: Invalid value/, 'status.certificate: Forbidden: updates may not set certificate content'],
    },
    {
      name: 'status sets a non-PEM certificate',
      old: csr(),
      next: csr(undefined, { certificate: 'eA==' }),
      path: { certificate: true },
      want: ['status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block'],
    },
    {
      name: 'status sets a key instead',
      old: csr(),
      next: csr(undefined, {
        certificate: Buffer.from('-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n').toString('base64'),
      }),
      path: { certificate: true },
      want: ['status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"'],
    },
  ];
  for (const c of cases) {
    const got = messages(validateCSRUpdate(c.next, c.old, c.path));
    assert.equal(got.length, c.want.length, `${c.name}: ${JSON.stringify(got)}`);
    c.want.forEach((w, i) => (typeof w === 'string' ? assert.equal(got[i], w, c.name) : assert.match(got[i], w, c.name)));
  }
  assert.deepEqual(validateCSRWrite(csr([approved]), csr([approved])), [], 'an unchanged status passes');
});

test('timestamps: lastUpdateTime now when unset, lastTransitionTime kept from the same type and status', () => {
  const old = csr([{ type: 'Failed', status: 'True', lastTransitionTime: '2019-01-01T00:00:00Z' }]);
  const next = csr([
    { type: 'Failed', status: 'True' },
    { type: 'Approved', status: 'True', lastUpdateTime: '2020-01-01T00:00:00Z' },
  ]);
  populateConditionTimestamps(next, old, '2026-01-01T00:00:00Z');
  assert.deepEqual(next.status.conditions, [
    { type: 'Failed', status: 'True', lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2019-01-01T00:00:00Z' },
    { type: 'Approved', status: 'True', lastUpdateTime: '2020-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' },
  ]);
});

test('approval keeps everything but the conditions; create drops a claimed identity', () => {
  const old = csr([], { certificate: 'Y2VydA==' });
  const requested = { ...csr([approved], { certificate: 'b3RoZXI=' }), spec: { ...spec, usages: ['server auth'] } };
  const out = applyApproval({ ...old, metadata: { name: 'c', labels: { a: 'b' } } }, requested, old, '2026-01-01T00:00:00Z');
  assert.deepEqual(out.status, { conditions: [{ ...approved, lastTransitionTime: '2026-01-01T00:00:00Z' }], certificate: 'Y2VydA==' });
  assert.deepEqual(out.metadata?.labels, { a: 'b' });
  assert.equal(out.spec, spec);
  assert.equal(requested.status.conditions[0].lastTransitionTime, undefined, 'the request is not changed');
  const created: any = { spec: { ...spec, username: 'root', uid: '0', groups: ['system:masters'], extra: { a: ['b'] } } };
  prepareCSRCreate(created, { username: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scope: ['x'] } });
  assert.deepEqual(created.spec, {
    ...spec,
    username: 'alice',
    uid: 'u-1',
    groups: ['devs', 'system:authenticated'],
    extra: { scope: ['x'] },
  });
  const byServer: any = { spec: { ...spec, username: 'root', groups: ['system:masters'] } };
  prepareCSRCreate(byServer);
  assert.deepEqual(byServer.spec, spec, 'no requestor: no identity, and never the one claimed');
});
