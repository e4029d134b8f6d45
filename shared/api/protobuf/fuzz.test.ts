// Garbage in, ProtobufDecodeError out: random bytes, every truncation and
// random mutations of real kubectl bodies, and random protobuf-shaped
// messages under real kinds must decode or throw ProtobufDecodeError, never
// anything else, and never hang. Seeded, so a failure can be replayed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { decodeKubeProtobuf, encodeKubeProtobuf, KUBE_PROTOBUF_CONTENT_TYPE, ProtobufDecodeError } from './index.ts';
import { KUBECTL_FIXTURES } from './kubectl-fixtures.ts';

/** mulberry32: a small seeded PRNG. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/** Decodes; returns false when it threw ProtobufDecodeError, fails the test on anything else. */
function tryDecode(b: Uint8Array, what: string): boolean {
  try {
    const d = decodeKubeProtobuf(b);
    // The result must be plain JSON (no bigint, no cycles).
    JSON.stringify(d.object);
    return true;
  } catch (e) {
    if (e instanceof ProtobufDecodeError) return false;
    assert.fail(`${what}: ${Buffer.from(b).toString('hex')} threw ${e instanceof Error ? (e.stack ?? e.message) : inspect(e)}`);
  }
}

const fixtures = KUBECTL_FIXTURES.filter((f) => f.contentType === KUBE_PROTOBUF_CONTENT_TYPE).map((f) => Buffer.from(f.body, 'base64'));

test('random bytes', () => {
  const r = rng(1);
  for (let i = 0; i < 3000; i++) {
    const len = Math.floor(r() * 300);
    const b = new Uint8Array(len + 4);
    for (let j = 0; j < b.length; j++) b[j] = Math.floor(r() * 256);
    if (r() < 0.7) b.set(MAGIC);
    tryDecode(b, `random ${i}`);
  }
});

test('every truncation of every kubectl body', () => {
  for (const f of fixtures) {
    for (let n = 0; n < f.length; n++) tryDecode(f.subarray(0, n), `truncated to ${n}`);
  }
});

test('random mutations of kubectl bodies', () => {
  const r = rng(2);
  let decoded = 0;
  for (let i = 0; i < 5000; i++) {
    const b = [...fixtures[Math.floor(r() * fixtures.length)]];
    const edits = 1 + Math.floor(r() * 4);
    for (let e = 0; e < edits; e++) {
      const at = 4 + Math.floor(r() * (b.length - 4));
      const op = r();
      if (op < 0.5) b[at] = Math.floor(r() * 256);
      else if (op < 0.75) b.splice(at, 0, Math.floor(r() * 256));
      else b.splice(at, 1);
    }
    if (tryDecode(Uint8Array.from(b), `mutation ${i}`)) decoded++;
  }
  // Some mutations only touch string contents: the fuzzing reaches real decoding.
  assert.ok(decoded > 0);
});

/** A random protobuf-shaped message: mostly well-formed fields with small numbers, nested. */
function randomMessage(r: () => number, depth: number): number[] {
  const out: number[] = [];
  const count = Math.floor(r() * 6);
  const varint = (v: number): void => {
    while (v >= 0x80) {
      out.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    out.push(v);
  };
  for (let i = 0; i < count; i++) {
    const n = 1 + Math.floor(r() * 20);
    const kind = r();
    if (kind < 0.3) {
      varint(n * 8);
      varint(r() < 0.1 ? 2 ** 53 + Math.floor(r() * 1e6) : Math.floor(r() * 1000));
    } else if (kind < 0.85) {
      const inner = depth < 6 && r() < 0.6 ? randomMessage(r, depth + 1) : [...Buffer.from(r() < 0.5 ? 'x' : '{"a":1}')];
      varint(n * 8 + 2);
      varint(inner.length);
      out.push(...inner);
    } else if (kind < 0.9) {
      varint(n * 8 + 5);
      out.push(1, 2, 3, 4);
    } else if (kind < 0.95) {
      varint(n * 8 + 1);
      out.push(1, 2, 3, 4, 5, 6, 7, 8);
    } else out.push(Math.floor(r() * 256));
  }
  return out;
}

test('random messages under real kinds', () => {
  const r = rng(3);
  const kinds: [string, string][] = [
    ['v1', 'Pod'],
    ['v1', 'Service'],
    ['v1', 'Secret'],
    ['v1', 'Node'],
    ['v1', 'WatchEvent'],
    ['apps/v1', 'Deployment'],
    ['apps/v1', 'ControllerRevision'],
    ['batch/v1', 'CronJob'],
    ['coordination.k8s.io/v1', 'Lease'],
    ['events.k8s.io/v1', 'Event'],
    ['authentication.k8s.io/v1', 'TokenRequest'],
    ['authorization.k8s.io/v1', 'SubjectAccessReview'],
  ];
  let decoded = 0;
  for (let i = 0; i < 4000; i++) {
    const [apiVersion, kind] = kinds[Math.floor(r() * kinds.length)];
    const tm = [0x0a, apiVersion.length, ...Buffer.from(apiVersion), 0x12, kind.length, ...Buffer.from(kind)];
    const raw = randomMessage(r, 0);
    const b = Uint8Array.from([...MAGIC, 0x0a, tm.length, ...tm, 0x12, ...lengthOf(raw.length), ...raw]);
    if (tryDecode(b, `${kind} ${i}`)) {
      decoded++;
      // Whatever decodes must encode again, and decode to the same thing.
      const d = decodeKubeProtobuf(b);
      try {
        assert.deepEqual(decodeKubeProtobuf(encodeKubeProtobuf(d.object)).object, d.object);
      } catch (e) {
        assert.fail(`${kind} ${i}: ${Buffer.from(b).toString('hex')}: ${(e as Error).message}`);
      }
    }
  }
  assert.ok(decoded > 100, `only ${decoded} decoded`);
});

function lengthOf(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}
