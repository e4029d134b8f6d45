// The fast path may only vouch for a body when the full scanner would report
// nothing and change nothing. Each row is a body; the test runs both and
// checks that the fast path never says "clean" where the scanner disagrees,
// and that it does say "clean" for the ordinary bodies it exists for.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { typeForKind } from '../../shared/api/schema/index.ts';
import { nodeForType, type StructNode } from './decode-schema.ts';
import { scanBody } from './decode-scan.ts';
import { countMembers, walkStruct } from './decode-fast.ts';

function root(group: string, version: string, kind: string): StructNode {
  const node = nodeForType(typeForKind(group, version, kind)!);
  assert.equal(node.kind, 'struct');
  return node;
}

const POD = root('', 'v1', 'Pod');
const DEPLOYMENT = root('apps', 'v1', 'Deployment');
const SECRET = root('', 'v1', 'Secret');
const LEASE = root('coordination.k8s.io', 'v1', 'Lease');

/** The fast path's verdict: clean or not. */
function fastSaysClean(node: StructNode, body: string): boolean {
  const walked = walkStruct(node, JSON.parse(body));
  return walked >= 0 && countMembers(body) === walked;
}

/** The scanner's verdict: nothing reported and the object left as parsed. */
function scannerSaysClean(node: StructNode, body: string): boolean {
  const obj = JSON.parse(body);
  const result = scanBody(body, node, obj, true);
  return result.strict.length === 0 && result.error === undefined && JSON.stringify(obj) === JSON.stringify(JSON.parse(body));
}

const pod = (spec: string, meta = '"name":"p"') => `{"apiVersion":"v1","kind":"Pod","metadata":{${meta}},"spec":${spec}}`;
const container = (extra = '') => `{"name":"c","image":"nginx:1.25"${extra}}`;

const CLEAN: [StructNode, string][] = [
  [POD, pod(`{"containers":[${container()}]}`)],
  [POD, pod(`{"containers":[${container(',"resources":{"limits":{"cpu":"500m","memory":"128Mi"},"requests":{"cpu":1}}')}]}`)],
  [POD, pod(`{"containers":[${container(',"ports":[{"containerPort":8080,"protocol":"TCP"}]')}],"priority":-5}`)],
  [POD, pod(`{"containers":[${container()}]}`, '"name":"p","labels":{"a":"b"},"creationTimestamp":"2024-01-02T03:04:05Z"')],
  [POD, pod(`{"containers":[${container(',"env":[{"name":"X","value":"a\\"b: c"}]')}]}`)],
  [
    DEPLOYMENT,
    '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":3,"selector":{"matchLabels":{"a":"b"}},"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":0}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}}',
  ],
  [SECRET, '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"k":"aGVsbG8="}}'],
  [
    LEASE,
    '{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"n"},"spec":{"holderIdentity":"n","leaseDurationSeconds":40,"renewTime":"2024-01-02T03:04:05.123456Z"}}',
  ],
];

const NOT_CLEAN: [StructNode, string][] = [
  // unknown and duplicate fields
  [POD, pod(`{"containers":[${container()}],"bogus":1}`)],
  [POD, pod(`{"containers":[${container()}]}`, '"name":"p","name":"q"')],
  [POD, pod(`{"containers":[${container()}]}`, '"name":"p","labels":{"a":"b","a":"c"}')],
  [POD, `{"apiVersion":"v1","Kind":"Pod","metadata":{"name":"p"}}`],
  // nulls in maps (Go writes the zero value)
  [POD, pod(`{"containers":[${container()}]}`, '"name":"p","labels":{"a":null}')],
  // number spellings Go's integer decoding refuses, and integers past double precision
  [POD, pod(`{"containers":[${container()}],"priority":1.0}`)],
  [POD, pod(`{"containers":[${container()}],"priority":1e3}`)],
  [POD, pod(`{"containers":[${container()}],"activeDeadlineSeconds":12345678901234567890}`)],
  [POD, pod(`{"containers":[${container()}],"priority":4294967296}`)],
  // type and format errors
  [POD, pod(`{"containers":[${container()}],"priority":"1"}`)],
  [POD, pod(`{"containers":[${container(',"resources":{"limits":{"cpu":"five"}}')}]}`)],
  [POD, pod(`{"containers":[${container(',"resources":{"limits":{"cpu":"1x"}}')}]}`)],
  [POD, pod(`{"containers":"c"}`)],
  // values Go writes back differently
  [POD, pod(`{"containers":[${container()}]}`, '"name":"p","creationTimestamp":"2024-01-02T03:04:05+00:00"')],
  [SECRET, '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"k":[104,105]}}'],
  [SECRET, '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"k":"not base64!"}}'],
  [LEASE, '{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"n"},"spec":{"renewTime":"2024-01-02T03:04:05Z"}}'],
];

test('the fast path vouches for ordinary bodies, and the scanner agrees', () => {
  for (const [node, body] of CLEAN) {
    assert.ok(scannerSaysClean(node, body), `the scanner finds something in ${body}`);
    assert.ok(fastSaysClean(node, body), `the fast path gives up on ${body}`);
  }
});

test('the fast path never vouches for a body the scanner reports on or rewrites', () => {
  for (const [node, body] of NOT_CLEAN) {
    assert.equal(scannerSaysClean(node, body), false, `the scanner finds nothing in ${body}`);
    assert.equal(fastSaysClean(node, body), false, `the fast path vouches for ${body}`);
  }
});

test('a null struct field is dropped, as the scanner drops it', () => {
  const body = pod(`{"containers":[${container()}]}`, '"name":"p","creationTimestamp":null');
  const scanned = JSON.parse(body);
  scanBody(body, POD, scanned, true);
  const walked = JSON.parse(body);
  assert.equal(walkStruct(POD, walked), countMembers(body));
  assert.deepEqual(walked, scanned);
  assert.equal('creationTimestamp' in walked.metadata, false);
});

test('countMembers skips strings with escaped quotes and colons', () => {
  assert.equal(countMembers('{"a":"x\\":y","b":{"c":[1,2,{"d":"\\\\"}]}}'), 4);
  assert.equal(countMembers('{"a":-0}'), -1);
  assert.equal(countMembers('{"a":-10}'), 1);
  assert.equal(countMembers('{"a":1.5}'), -1);
});
