// Request bodies for the fuzzer: objects, patches and DeleteOptions, encoded
// as JSON, YAML or protobuf and then damaged (mutate.ts). A "guard" is put
// back after the damage when the request aims at a protected object, so that
// kube would refuse it (stale resourceVersion, wrong uid precondition).
import YAML from 'yaml';
import { encodeKubeProtobuf } from '../../../shared/api/protobuf/index.ts';
import {
  deepJson,
  duplicateKeys,
  hugeJson,
  hugeNumbers,
  MAX_BODY,
  MAX_DEPTH,
  mutateBytes,
  mutateTree,
  yamlTrick,
  type Mutated,
} from './mutate.ts';
import type { Rng } from './prng.ts';

/** The resourceVersion a guarded write carries: a revision the store never reaches in a test, so never any object's current one. */
export const STALE_RV = '999999999';
/** Why a guarded write must get a 4xx. */
export const GUARDED = 'guarded: a write with a stale resourceVersion or a wrong uid precondition must be refused';
/** The uid a guarded delete's precondition carries. */
export const WRONG_UID = '00000000-0000-0000-0000-00000000dead';

export type Encoding = 'json' | 'yaml' | 'protobuf';
export const MEDIA: Record<Encoding, string> = {
  json: 'application/json',
  yaml: 'application/yaml',
  protobuf: 'application/vnd.kubernetes.protobuf',
};

/** Encodes an object; protobuf falls back to JSON-in-the-envelope bytes when the object does not encode. */
function encode(obj: any, enc: Encoding): { body: Buffer; how: string } {
  if (enc === 'json') return { body: Buffer.from(JSON.stringify(obj)), how: 'json' };
  if (enc === 'yaml') return { body: Buffer.from(YAML.stringify(obj)), how: 'yaml' };
  try {
    return { body: encodeKubeProtobuf(obj), how: 'protobuf' };
  } catch {
    // Not encodable (a damaged tree): send the magic followed by garbage JSON, which is what a broken client would.
    return { body: Buffer.concat([Buffer.from('k8s\0'), Buffer.from(JSON.stringify(obj))]), how: 'protobuf magic + json' };
  }
}

/**
 * A damaged encoding of `obj`. When `guard` is given it is applied again
 * after damage if the result still decodes as a JSON object (for JSON), so
 * that the body still cannot legitimately change a protected object.
 */
export function damagedObject(r: Rng, obj: any, enc: Encoding, guard?: (o: any) => any): Mutated {
  const how: string[] = [];
  let mustRefuse: string | undefined;
  let body: Buffer;
  const mode = r.weighted({ none: 10, tree: 30, bytes: 20, dup: 8, deep: 8, huge: 2, numbers: 8, yaml: enc === 'yaml' ? 16 : 0 });
  let tree = structuredClone(obj);
  switch (mode) {
    case 'tree': {
      const m = mutateTree(r, tree);
      tree = m.obj;
      how.push(...m.how);
      ({ body } = encode(tree, enc));
      break;
    }
    case 'bytes': {
      const m = mutateBytes(r, encode(tree, enc).body);
      body = m.body;
      how.push(...m.how);
      break;
    }
    case 'dup': {
      const d = duplicateKeys(r, tree);
      body = Buffer.from(d.text);
      how.push(d.how);
      break;
    }
    case 'deep': {
      const d = deepJson(r, tree);
      body = Buffer.from(d.text);
      how.push(d.how);
      if (d.depth > MAX_DEPTH) mustRefuse = `nesting ${d.depth} deep is more than kube's ${MAX_DEPTH}`;
      break;
    }
    case 'huge': {
      const d = hugeJson(r, tree);
      body = Buffer.from(d.text);
      how.push(d.how);
      break;
    }
    case 'numbers': {
      const d = hugeNumbers(r, tree);
      body = Buffer.from(d.text);
      how.push(d.how);
      break;
    }
    case 'yaml': {
      const d = yamlTrick(r, tree);
      body = Buffer.from(d.text);
      how.push(d.how);
      if (d.depth && d.depth > MAX_DEPTH) mustRefuse = `YAML nesting ${d.depth} deep is more than kube's ${MAX_DEPTH}`;
      break;
    }
    default:
      ({ body } = encode(tree, enc));
      how.push('unmutated');
  }
  if (guard && enc === 'json') {
    // Parse the damaged text the way any JSON decoder would; if it is still an object, put the guard back.
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      // Not JSON any more: a decoder must refuse it, which is the guard.
    }
    // JSON null decodes into an empty struct in Go (a DeleteOptions of null is no options at all): guard it too.
    if (parsed === null) parsed = {};
    if (parsed && typeof parsed === 'object') {
      body = withGuard(body, parsed, guard);
      how.push('guard re-applied');
      mustRefuse ??= GUARDED;
    }
  }
  if (body.length > MAX_BODY) mustRefuse = `a body of ${body.length} bytes is above kube's 3 MiB limit`;
  return { body, how, mustRefuse };
}

/**
 * The body with its guard. Re-serialising is simplest, but JSON.stringify
 * overflows the stack on very deep documents; then the guard goes in as text:
 * last in an object (the last of duplicate keys wins), first in an array.
 */
function withGuard(body: Buffer, parsed: object, guard: (o: any) => any): Buffer {
  try {
    return Buffer.from(JSON.stringify(guard(parsed)));
  } catch {
    const text = body.toString('utf8').trim();
    if (Array.isArray(parsed)) {
      const op = JSON.stringify(guard([])[0]);
      return Buffer.from(parsed.length ? `[${op},${text.slice(1)}` : `[${op}]`);
    }
    const fields = JSON.stringify(guard({})).slice(1, -1);
    const close = text.lastIndexOf('}');
    return Buffer.from(`${text.slice(0, close)}${Object.keys(parsed).length ? ',' : ''}${fields}}`);
  }
}

/** Sets the stale-resourceVersion guard on an object (or the metadata of a patch). */
export function staleRv(o: any): any {
  if (Array.isArray(o)) return [{ op: 'test', path: '/metadata/resourceVersion', value: STALE_RV }, ...o];
  if (!o || typeof o !== 'object') return o;
  o.metadata = o.metadata && typeof o.metadata === 'object' && !Array.isArray(o.metadata) ? o.metadata : {};
  o.metadata.resourceVersion = STALE_RV;
  return o;
}

/** Sets the wrong-uid precondition on DeleteOptions. */
export function wrongUid(o: any): any {
  if (!o || typeof o !== 'object' || Array.isArray(o)) return o;
  o.preconditions = { uid: WRONG_UID };
  return o;
}

/** A valid-looking DeleteOptions. */
export function deleteOptions(r: Rng): any {
  const o: any = { kind: 'DeleteOptions', apiVersion: r.pick(['v1', 'meta.k8s.io/v1']) };
  if (r.chance(0.5)) o.gracePeriodSeconds = r.pick([0, 1, 30, -1, 1e10, 0.5]);
  if (r.chance(0.5)) o.propagationPolicy = r.pick(['Background', 'Foreground', 'Orphan', 'Garbage']);
  if (r.chance(0.2)) o.orphanDependents = r.pick([true, false]);
  if (r.chance(0.3)) o.preconditions = r.pick([{ uid: WRONG_UID }, { resourceVersion: STALE_RV }, { uid: '' }, {}]);
  if (r.chance(0.2)) o.dryRun = r.pick([['All'], ['Garbage'], [], 'All']);
  return o;
}

/** DeleteOptions as protobuf, as helm 4 sends them. */
export function deleteOptionsProtobuf(o: any): Buffer {
  try {
    return encodeKubeProtobuf({ ...o, apiVersion: 'v1', kind: 'DeleteOptions' });
  } catch {
    return encodeKubeProtobuf({ apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: WRONG_UID } });
  }
}

const PATCH_MEDIA = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;
export type PatchType = keyof typeof PATCH_MEDIA;
export const patchMedia = (t: PatchType): string => PATCH_MEDIA[t];

const POINTERS = [
  '/metadata/labels/a',
  '/metadata/labels/a~1b',
  '/metadata/labels/~2',
  '/metadata/annotations',
  '/data/key',
  '/data',
  '/spec/replicas',
  '/spec/template/spec/containers/-',
  '/spec/template/spec/containers/0/image',
  '/spec/containers/99999999999',
  '/spec/containers/-1',
  '/metadata/name',
  '/metadata/namespace',
  '/metadata/uid',
  '/metadata',
  '',
  '/',
  'no-slash',
  '/metadata/finalizers/0',
  '/status',
  '/kind',
  '/apiVersion',
  '/metadata/labels/' + 'x'.repeat(5000),
  '/zz/ñ/😀',
];

/** One JSON-patch operation, valid or not. */
function jsonPatchOp(r: Rng): any {
  const op = r.pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'foo', '', 'ADD']);
  const o: any = { op, path: r.pick(POINTERS) };
  if (['add', 'replace', 'test'].includes(op) || r.chance(0.2))
    o.value = r.pick<unknown>(['v', 1, null, { a: 1 }, ['x'], 'x'.repeat(r.int(1, 50_000))]);
  if (['move', 'copy'].includes(op) || r.chance(0.1)) o.from = r.pick(POINTERS);
  if (r.chance(0.05)) delete o.path;
  if (r.chance(0.05)) delete o.op;
  return o;
}

/** A JSON patch whose copies double a value until it is far above 3 MiB; small on the wire. */
function copyBomb(r: Rng): { ops: any[]; result: number } {
  const seed = r.int(1024, 64 * 1024);
  const doublings = Math.ceil(Math.log2((r.int(4, 20) * 1024 * 1024) / seed));
  const ops: any[] = [{ op: 'add', path: '/metadata/annotations', value: { bomb: 'x'.repeat(seed) } }];
  for (let i = 0; i < doublings; i++) ops.push({ op: 'copy', from: '/metadata/annotations', path: `/metadata/annotations/c${i}` });
  return { ops, result: seed * 2 ** doublings };
}

/** A patch body of the given type for an object like `obj`. */
export function patchBody(r: Rng, type: PatchType, obj: any, guard: boolean): Mutated {
  if (type === 'json') {
    const kind = r.weighted({ ops: 60, bomb: 8, many: 4, garbage: 12, damaged: 16 });
    if (kind === 'bomb') {
      const b = copyBomb(r);
      const ops = guard ? staleRv(b.ops) : b.ops;
      return {
        body: Buffer.from(JSON.stringify(ops)),
        how: [`copy bomb to ${b.result} bytes in ${ops.length} ops`],
        mustRefuse: `a JSON patch that copies ${b.result} bytes (kube stops at 3 MiB)`,
      };
    }
    if (kind === 'many') {
      const n = r.pick([10_001, 20_000]);
      const ops = Array.from({ length: n }, (_, i) => ({ op: 'add', path: `/metadata/labels/l${i % 50}`, value: 'v' }));
      return {
        body: Buffer.from(JSON.stringify(guard ? staleRv(ops) : ops)),
        how: [`${n} operations`],
        mustRefuse: `${n} JSON patch operations (kube allows 10000)`,
      };
    }
    if (kind === 'garbage') {
      const body = r.pick([
        '{}',
        'null',
        '[null]',
        '[1,2]',
        '[[]]',
        '"add"',
        '[{"op":"add"}]',
        '[{"op":"move","from":"/metadata","path":"/metadata/labels/x"}]',
        '[{"op":"copy","from":"/metadata","path":"/metadata/annotations/x"}]',
        '',
        '[',
        '[{"op":"add","path":"/metadata/labels/x","value":"y"}]x',
      ]);
      return {
        body: Buffer.from(guard && body.startsWith('[{') && !body.endsWith('x') ? JSON.stringify(staleRv(JSON.parse(body))) : body),
        how: [`garbage patch ${body.slice(0, 40)}`],
        mustRefuse: guard && body.startsWith('[{') ? GUARDED : undefined,
      };
    }
    const ops = Array.from({ length: r.int(1, 5) }, () => jsonPatchOp(r));
    if (kind === 'damaged') return damagedObject(r, ops, 'json', guard ? staleRv : undefined);
    return {
      body: Buffer.from(JSON.stringify(guard ? staleRv(ops) : ops)),
      how: ['json patch ops'],
      mustRefuse: guard ? GUARDED : undefined,
    };
  }
  if (type === 'apply') {
    const applied = structuredClone(obj);
    if (r.chance(0.3)) applied.metadata.labels = { ...applied.metadata.labels, applied: r.dnsLabel() };
    // Apply has no guard here: requests to protected objects carry dryRun=All instead.
    return damagedObject(r, applied, r.chance(0.7) ? 'yaml' : 'json');
  }
  // merge and strategic
  const patch: any = r.pick([
    () => ({ metadata: { labels: { fuzz: r.dnsLabel() } } }),
    () => ({ metadata: { labels: { app: null }, annotations: { a: 'b' } } }),
    () => ({ data: { key: 'patched', gone: null } }),
    () => ({ spec: { replicas: r.pick([0, 3, -1, 1e9, '3', null]) } }),
    () => ({ spec: { template: { spec: { containers: [{ name: 'c', image: 'patched' }] } } } }),
    () => ({ spec: { template: { spec: { containers: [{ $patch: 'delete', name: 'c' }] } } } }),
    () => ({
      spec: {
        template: {
          spec: {
            $setElementOrder: 'x',
            containers: [{ name: 'z', image: 'i' }],
            '$setElementOrder/containers': [{ name: 'z' }, { name: 'c' }],
          },
        },
      },
    }),
    () => ({ metadata: { '$deleteFromPrimitiveList/finalizers': ['a', 1, null] } }),
    () => ({ spec: { $retainKeys: r.pick([['replicas'], 'notalist', [1, null]]) } }),
    () => ({ $patch: r.pick(['replace', 'delete', 'merge', 'garbage', 1]) }),
    () => ({ metadata: { finalizers: [{ $patch: 'delete' }] } }),
    () => ({
      metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'keep-configmap', uid: WRONG_UID, controller: true }] },
    }),
    () => ({ kind: 'Secret' }),
    () => ({ metadata: { name: 'renamed', namespace: 'default' } }),
    () => [],
    () => 'string',
  ])();
  return damagedObject(r, patch, 'json', guard ? staleRv : undefined);
}
