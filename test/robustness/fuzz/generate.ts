// Builds fuzzed request number `index` of a run from (seed, index) alone.
// Writes that could succeed touch only the scratch namespace or new names;
// a write aimed at a protected object carries a guard that makes kube refuse
// or not persist it (dryRun=All, a stale resourceVersion, a wrong uid
// precondition, a label selector that matches nothing), and a hostile name or
// namespace is never a valid one, so any change to protected data is a bug.
import {
  GUARDED,
  damagedObject,
  deleteOptions,
  deleteOptionsProtobuf,
  MEDIA,
  patchBody,
  patchMedia,
  staleRv,
  wrongUid,
  type Encoding,
  type PatchType,
} from './bodies.ts';
import { KINDS, PROTECTED_CLUSTER_NAMES, PROTECTED_NS, SCRATCH_NS, seedNames, type KindSpec } from './corpus.ts';
import { mutateBytes, type Mutated } from './mutate.ts';
import { encodeLetters, hostileName, hostileNamespace, hostilePath, oddPrefix, oddResource, wireSafe } from './paths.ts';
import { Rng } from './prng.ts';
import { acceptHeader, badQuery, contentTypeFor, queryString } from './query.ts';

/** One request to send, with what the checker needs to judge its answer. */
export interface FuzzRequest {
  index: number;
  family: string;
  method: string;
  /** The request target as sent on the wire (path and query). */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Send the body with chunked encoding instead of a Content-Length. */
  chunked?: boolean;
  /** Why any answer but a 4xx is wrong, when it is. */
  mustRefuse?: string;
  /** The name (or the namespace of a named request or a create) is hostile: kube answers 4xx. */
  hostile?: boolean;
  /** For a GET of one object on its canonical route: the namespace and name the answer must have. */
  expectObject?: { namespace: string; name: string };
  /**
   * Where any object in a 2xx answer must live: a list or deletecollection in
   * namespace N answers objects of N only, and one in a hostile namespace
   * answers none (kube reads one namespace, never a path beyond it).
   */
  scope?: { namespace: string } | { empty: true };
  /** The request aims at a protected object or collection (and carries a guard). */
  aimsAtProtected?: boolean;
  /** What the generator did, for the report. */
  how: string[];
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const NEVER_SELECTOR = 'fuzz.ksim.dev/never=matches';

interface Target {
  spec: KindSpec;
  /** Namespace segment as it goes in the path. */
  nsSeg: string;
  /** Name segment as it goes in the path ('' for a collection). */
  nameSeg: string;
  /** The namespace and name a correct server reads from the path (undefined when hostile). */
  ns?: string;
  name?: string;
  hostile: boolean;
  /** A write that could succeed here would change protected data. */
  protected: boolean;
}

function pickTarget(r: Rng, spec: KindSpec, withName: boolean): Target {
  let ns = '';
  let nsSeg = '';
  let hostile = false;
  let prot = false;
  if (spec.namespaced) {
    const kind = r.weighted({ scratch: 55, protected: 30, hostile: 8, missing: 4, encoded: 3 });
    if (kind === 'hostile') {
      nsSeg = hostileNamespace(r);
      hostile = true;
    } else if (kind === 'missing') {
      ns = nsSeg = `fuzz-missing-${r.dnsLabel(3, 6)}`;
    } else {
      ns = kind === 'scratch' ? SCRATCH_NS : r.pick(PROTECTED_NS);
      nsSeg = kind === 'encoded' ? encodeLetters(r, ns) : ns;
      prot = ns !== SCRATCH_NS;
    }
  }
  let name = '';
  let nameSeg = '';
  if (withName) {
    const kind = r.weighted({ existing: 45, fresh: 30, hostile: 20, encoded: 5 });
    if (kind === 'hostile') {
      nameSeg = hostileName(r);
      hostile = true;
    } else {
      const existing = spec.namespaced ? seedNames(spec.kind, ns || SCRATCH_NS) : (PROTECTED_CLUSTER_NAMES[spec.plural] ?? []);
      name = kind === 'fresh' || existing.length === 0 ? `fuzz-${r.dnsLabel(4, 10)}` : r.pick(existing);
      nameSeg = kind === 'encoded' ? encodeLetters(r, name) : name;
      if (!spec.namespaced && existing.includes(name)) prot = true;
    }
  }
  return { spec, nsSeg, nameSeg, ns: hostile ? undefined : ns, name: hostile ? undefined : name, hostile, protected: prot && !hostile };
}

/** The path of a target, sometimes with an odd prefix, resource segment or slashes. */
function targetPath(r: Rng, t: Target, sub: string, req: FuzzRequest): { path: string; canonical: boolean } {
  const how = req.how;
  let prefix = t.spec.prefix;
  let plural = t.spec.plural;
  let canonical = true;
  const mangle = r.weighted({ none: 88, prefix: 4, resource: 4, watchPrefix: 2, slashes: 2 });
  if (mangle === 'prefix') prefix = oddPrefix(r);
  if (mangle === 'resource') plural = oddResource(r);
  if (mangle !== 'none') {
    how.push(`path mangled: ${mangle}`);
    canonical = false;
  }
  const ns = t.spec.namespaced ? `/namespaces/${t.nsSeg}` : '';
  let path = `${prefix}${mangle === 'watchPrefix' ? '/watch' : ''}${ns}/${plural}${t.nameSeg ? `/${t.nameSeg}` : ''}${sub ? `/${sub}` : ''}`;
  if (mangle === 'slashes') path = path.replace(/\//g, () => (r.chance(0.2) ? '//' : '/'));
  if (canonical && !t.nameSeg.includes('/')) {
    if (!t.spec.namespaced) req.scope = { namespace: '' };
    else if (t.ns !== undefined) req.scope = { namespace: t.ns };
    else if (!t.nameSeg) req.scope = { empty: true };
  }
  return { path, canonical };
}

function withBody(req: FuzzRequest, m: Mutated, contentType: string | undefined): void {
  req.body = m.body;
  req.how.push(...m.how);
  if (contentType !== undefined) req.headers['content-type'] = contentType;
  if (m.mustRefuse) req.mustRefuse = m.mustRefuse;
}

/** A body object for a target: usually its own kind, sometimes another kind's. */
function objectFor(r: Rng, t: Target, how: string[]): any {
  const spec = r.chance(0.85) ? t.spec : r.pick(KINDS);
  if (spec !== t.spec) how.push(`body of kind ${spec.kind}`);
  const name = t.name || `fuzz-${r.dnsLabel(4, 8)}`;
  const obj = spec.make(t.ns ?? SCRATCH_NS, name);
  if (!spec.namespaced) delete obj.metadata.namespace;
  if (r.chance(0.1)) {
    delete obj.metadata.name;
    obj.metadata.generateName = r.pick(['fuzz-', '-', '', '..', 'UPPER-', 'x'.repeat(300)]);
  }
  return obj;
}

function encodingFor(r: Rng): Encoding {
  return r.weighted({ json: 55, yaml: 22, protobuf: 23 });
}

/** Adds the query (garbage parameters, and the guard when one is needed). */
function finishQuery(r: Rng, req: FuzzRequest, base: string, params: [string, string][], guard?: 'dryRun' | 'selector'): void {
  let ps = params;
  if (guard) req.aimsAtProtected = true;
  if (guard === 'dryRun') {
    ps = ps.filter(([k]) => k !== 'dryRun');
    ps.push(['dryRun', 'All']);
    req.how.push('guard: dryRun=All');
  }
  if (guard === 'selector') {
    ps = [
      ['labelSelector', NEVER_SELECTOR + (r.chance(0.3) ? ',' + r.pick(['!a', 'a in (b', 'x', '%zz', '==']) : '')],
      ...ps.filter(([k]) => k !== 'labelSelector'),
    ];
    req.how.push('guard: a label selector that matches nothing');
  }
  req.path = wireSafe(base + queryString(r, ps));
}

function someParams(r: Rng): [string, string][] {
  return r.chance(0.5) ? badQuery(r) : [];
}

function genCreate(r: Rng, req: FuzzRequest): void {
  const spec = r.pick(KINDS);
  const t = pickTarget(r, spec, false);
  const sub = '';
  const { path } = targetPath(r, t, sub, req);
  req.method = 'POST';
  const enc = encodingFor(r);
  withBody(req, damagedObject(r, objectFor(r, t, req.how), enc), contentTypeFor(r, MEDIA[enc]));
  finishQuery(r, req, path, someParams(r), t.protected ? 'dryRun' : undefined);
  if (t.hostile) req.hostile = true;
}

function genUpdate(r: Rng, req: FuzzRequest): void {
  const t = pickTarget(r, r.pick(KINDS), true);
  const sub = r.chance(0.15) ? r.pick([...t.spec.subresources, 'status', 'scale', 'finalize', 'approval', 'foo']) : '';
  const { path } = targetPath(r, t, sub, req);
  req.method = 'PUT';
  const enc = t.protected && r.chance(0.6) ? 'json' : encodingFor(r);
  const obj = objectFor(r, t, req.how);
  if (r.chance(0.3)) obj.metadata.resourceVersion = r.pick(['abc', '', '-1', '99999999999']);
  const guard = t.protected ? (enc === 'json' ? staleRv : undefined) : undefined;
  withBody(req, damagedObject(r, guard ? guard(obj) : obj, enc, guard), contentTypeFor(r, MEDIA[enc]));
  finishQuery(r, req, path, someParams(r), t.protected && !guard ? 'dryRun' : undefined);
  if (guard) req.how.push('guard: stale resourceVersion');
  if (t.protected) req.aimsAtProtected = true;
  if (t.hostile) req.hostile = true;
}

function genPatch(r: Rng, req: FuzzRequest): void {
  const t = pickTarget(r, r.pick(KINDS), true);
  const sub = r.chance(0.1) ? r.pick([...t.spec.subresources, 'status', 'scale']) : '';
  const { path } = targetPath(r, t, sub, req);
  req.method = 'PATCH';
  const type = r.weighted<PatchType>({ json: 30, merge: 25, strategic: 25, apply: 20 });
  req.how.push(`${type} patch`);
  const useRv = t.protected && type !== 'apply';
  const m = patchBody(r, type, objectFor(r, t, req.how), useRv);
  // A JSON-patch or merge body that is no longer JSON needs no guard; one that is got its guard back in patchBody.
  withBody(req, m, contentTypeFor(r, patchMedia(type)));
  const params = someParams(r);
  if (type === 'apply' && r.chance(0.85)) params.push(['fieldManager', r.pick(['fuzz', 'kubectl', 'm'.repeat(129)])]);
  if (type === 'apply' && r.chance(0.2)) params.push(['force', 'true']);
  // A damaged content type can turn the body into another patch type: guard those with dryRun too.
  const ctChanged = req.headers['content-type'] !== patchMedia(type);
  finishQuery(r, req, path, params, t.protected && (!useRv || ctChanged) ? 'dryRun' : undefined);
  if (useRv) req.how.push('guard: stale resourceVersion');
  if (t.protected) req.aimsAtProtected = true;
  if (ctChanged && req.mustRefuse === GUARDED) req.mustRefuse = undefined;
  if (t.hostile) req.hostile = true;
}

function genDelete(r: Rng, req: FuzzRequest): void {
  const t = pickTarget(r, r.pick(KINDS), true);
  const { path } = targetPath(r, t, '', req);
  req.method = 'DELETE';
  const bodyKind = r.weighted({ none: 35, json: 45, protobuf: 20 });
  let guard: 'dryRun' | undefined;
  if (bodyKind === 'none') {
    if (t.protected) guard = 'dryRun';
  } else if (bodyKind === 'json') {
    const opts = deleteOptions(r);
    withBody(
      req,
      damagedObject(r, t.protected ? wrongUid(opts) : opts, 'json', t.protected ? wrongUid : undefined),
      contentTypeFor(r, 'application/json'),
    );
    if (t.protected) req.how.push('guard: wrong uid precondition');
  } else {
    const opts = deleteOptions(r);
    if (t.protected) {
      // Damage could drop the precondition: a protected target gets it intact.
      req.body = deleteOptionsProtobuf(wrongUid(opts));
      req.mustRefuse = GUARDED;
      req.how.push('protobuf DeleteOptions, guard: wrong uid precondition');
    } else {
      const pb = deleteOptionsProtobuf(opts);
      const m = r.chance(0.5) ? mutateBytes(r, pb) : { body: pb, how: ['unmutated'] };
      req.body = m.body;
      req.how.push('protobuf DeleteOptions', ...m.how);
    }
    req.headers['content-type'] = contentTypeFor(r, MEDIA.protobuf) ?? MEDIA.protobuf;
  }
  finishQuery(r, req, path, someParams(r), guard);
  if (t.protected) req.aimsAtProtected = true;
  if (t.hostile) req.hostile = true;
}

function genDeleteCollection(r: Rng, req: FuzzRequest): void {
  const t = pickTarget(r, r.pick(KINDS), false);
  const { path } = targetPath(r, t, '', req);
  req.method = 'DELETE';
  if (r.chance(0.4)) withBody(req, damagedObject(r, deleteOptions(r), 'json'), 'application/json');
  // Cluster-scoped collections always hold protected objects; so do the protected namespaces.
  const guarded = !t.hostile && (t.protected || !t.spec.namespaced);
  finishQuery(r, req, path, someParams(r), guarded ? 'selector' : undefined);
}

function genRead(r: Rng, req: FuzzRequest): void {
  // A list in a namespace with an odd (but not refused) name is an empty list in kube: only a named GET must fail.
  const t = pickTarget(r, r.pick(KINDS), r.chance(0.6));
  const sub = r.chance(0.1) ? r.pick([...t.spec.subresources, 'status', 'scale', 'exec', 'attach']) : '';
  const { path, canonical } = targetPath(r, t, sub, req);
  req.method = r.chance(0.85) ? 'GET' : 'HEAD';
  const accept = acceptHeader(r);
  if (accept !== undefined) req.headers.accept = accept;
  finishQuery(r, req, path, r.chance(0.7) ? badQuery(r) : []);
  if (t.hostile && t.nameSeg) req.hostile = true;
  if (canonical && !sub && t.name && t.ns !== undefined) req.expectObject = { namespace: t.spec.namespaced ? t.ns : '', name: t.name };
}

function genWatch(r: Rng, req: FuzzRequest): void {
  const t = pickTarget(r, r.pick(KINDS), r.chance(0.2));
  const { path } = targetPath(r, t, '', req);
  req.method = 'GET';
  const accept = acceptHeader(r);
  if (accept !== undefined) req.headers.accept = accept;
  const params: [string, string][] = [
    ['watch', r.pick(['true', '1', 'True'])],
    ['timeoutSeconds', '1'],
    ...badQuery(r, r.int(0, 3)).filter(([k]) => k !== 'timeoutSeconds' && k !== 'watch'),
  ];
  finishQuery(r, req, path, params);
  if (t.hostile) req.hostile = true;
}

function genSubresource(r: Rng, req: FuzzRequest): void {
  const spec = r.pick(KINDS.filter((k) => k.subresources.length > 0));
  const t = pickTarget(r, spec, true);
  const sub = r.pick([...spec.subresources, 'foo', 'status/extra']);
  const { path } = targetPath(r, t, sub, req);
  const enc = encodingFor(r);
  let guard: 'dryRun' | undefined;
  if (['binding', 'eviction', 'token'].includes(sub)) {
    req.method = r.chance(0.85) ? 'POST' : r.pick(['GET', 'PUT']);
    const body =
      sub === 'binding'
        ? {
            apiVersion: 'v1',
            kind: 'Binding',
            metadata: { name: t.name ?? 'x' },
            target: { apiVersion: 'v1', kind: 'Node', name: r.pick(['keep-node', 'nope', '']) },
          }
        : sub === 'eviction'
          ? {
              apiVersion: 'policy/v1',
              kind: 'Eviction',
              metadata: { name: t.name ?? 'x', namespace: t.ns },
              deleteOptions: r.chance(0.5) ? deleteOptions(r) : undefined,
            }
          : {
              apiVersion: 'authentication.k8s.io/v1',
              kind: 'TokenRequest',
              spec: { audiences: ['x'], expirationSeconds: r.pick([600, 3600, -1, 1e12]) },
            };
    withBody(req, damagedObject(r, body, enc), contentTypeFor(r, MEDIA[enc]));
    if (t.protected && req.method !== 'GET') guard = 'dryRun';
  } else if (sub === 'exec' || sub === 'attach') {
    req.method = r.pick(['GET', 'POST']);
    finishQuery(r, req, path, [['command', 'sh'], ['stdin', 'true'], ['tty', 'true'], ...badQuery(r, r.int(0, 2))]);
    if (t.hostile) req.hostile = true;
    return;
  } else {
    req.method = r.pick(['GET', 'PUT', 'PUT', 'PATCH', 'POST', 'DELETE']);
    const obj: any =
      sub === 'scale'
        ? {
            apiVersion: 'autoscaling/v1',
            kind: 'Scale',
            metadata: { name: t.name ?? 'x', namespace: t.ns },
            spec: { replicas: r.pick([0, 5, -1, 1e10, '2']) },
          }
        : objectFor(r, t, req.how);
    if (sub === 'finalize') obj.spec = { finalizers: r.pick([[], ['kubernetes'], ['x/y'], 'no']) };
    if (req.method === 'PATCH') {
      const type = r.weighted<PatchType>({ json: 30, merge: 40, strategic: 30, apply: 0 });
      withBody(req, patchBody(r, type, obj, t.protected), patchMedia(type));
    } else if (req.method !== 'GET' && req.method !== 'DELETE') {
      const useRv = t.protected && enc === 'json';
      withBody(req, damagedObject(r, useRv ? staleRv(obj) : obj, enc, useRv ? staleRv : undefined), contentTypeFor(r, MEDIA[enc]));
      if (t.protected && !useRv) guard = 'dryRun';
      if (t.protected && useRv && req.headers['content-type'] !== MEDIA.json) guard = 'dryRun';
    } else if (req.method === 'DELETE' && t.protected) {
      guard = 'dryRun';
    }
    if (t.protected && req.method === 'POST') guard = 'dryRun';
  }
  finishQuery(r, req, path, someParams(r), guard);
  if (t.protected) req.aimsAtProtected = true;
  if (t.hostile) req.hostile = true;
}

function genPath(r: Rng, req: FuzzRequest): void {
  req.method = r.pick(['GET', 'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND']);
  if (['POST', 'PUT', 'PATCH'].includes(req.method)) {
    const spec = r.pick(KINDS);
    const type = req.method === 'PATCH' ? r.pick<PatchType>(['json', 'merge', 'strategic', 'apply']) : undefined;
    const obj = spec.make(SCRATCH_NS, 'fuzz-path');
    const m = type ? patchBody(r, type, obj, false) : damagedObject(r, obj, 'json');
    withBody(req, m, type ? patchMedia(type) : 'application/json');
    // Size and depth rules are about bodies that reach a decoder: a hostile path may be refused first with any 4xx.
  } else if (req.method === 'DELETE' && r.chance(0.5)) {
    withBody(req, { body: Buffer.from(JSON.stringify(deleteOptions(r))), how: ['DeleteOptions'] }, 'application/json');
  }
  const params = r.chance(0.4) ? badQuery(r) : [];
  if (req.method === 'PATCH' && req.headers['content-type'] === patchMedia('apply')) params.push(['fieldManager', 'fuzz']);
  finishQuery(r, req, hostilePath(r), params);
  req.hostile = true;
}

function genUpgrade(r: Rng, req: FuzzRequest): void {
  const pods = KINDS.find((k) => k.plural === 'pods')!;
  const kind = r.weighted({ exec: 35, watch: 35, portforward: 10, other: 10, hostile: 10 });
  let path: string;
  const params: [string, string][] = [];
  if (kind === 'hostile') {
    path = hostilePath(r);
    req.hostile = true;
  } else if (kind === 'watch') {
    const t = pickTarget(r, r.pick(KINDS), false);
    path = targetPath(r, t, '', req).path;
    params.push(['watch', 'true'], ['timeoutSeconds', '1']);
  } else {
    const t = pickTarget(r, kind === 'other' ? r.pick(KINDS) : pods, true);
    path = targetPath(
      r,
      t,
      kind === 'other' ? r.pick(['status', 'log', 'proxy', '']) : kind === 'portforward' ? 'portforward' : r.pick(['exec', 'attach']),
      req,
    ).path;
    params.push(
      ...r.pick<[string, string][]>([
        [
          ['command', 'sh'],
          ['stdin', 'true'],
          ['stdout', 'true'],
          ['tty', 'true'],
        ],
        [
          ['container', 'c'],
          ['stdout', '1'],
        ],
        [['ports', '80']],
        [],
      ]),
    );
    if (t.hostile) req.hostile = true;
  }
  req.method = r.chance(0.9) ? 'GET' : r.pick(['POST', 'PUT']);
  req.headers.connection = 'Upgrade';
  req.headers.upgrade = r.pick(['websocket', 'websocket', 'WebSocket', 'SPDY/3.1', 'h2c', 'garbage']);
  const key = r.weighted({ valid: 60, missing: 10, garbage: 15, long: 5, short: 10 });
  if (key !== 'missing') {
    req.headers['sec-websocket-key'] =
      key === 'valid'
        ? Buffer.from(Array.from({ length: 16 }, () => r.int(0, 255))).toString('base64')
        : key === 'garbage'
          ? r.pick(['!!!', 'not base64', '%00', ''])
          : key === 'long'
            ? 'A'.repeat(5000)
            : 'AAAA';
  }
  if (r.chance(0.9)) req.headers['sec-websocket-version'] = r.pick(['13', '13', '8', '', 'abc', '99']);
  if (r.chance(0.7))
    req.headers['sec-websocket-protocol'] = r.pick([
      'v4.channel.k8s.io',
      'v5.channel.k8s.io',
      'base64.channel.k8s.io',
      'base64url.bookmarks.k8s.io',
      'garbage',
      '',
      'v4.channel.k8s.io, x'.repeat(200),
    ]);
  req.how.push(`upgrade ${req.headers.upgrade}, key ${key}`);
  finishQuery(r, req, path, [...params, ...(r.chance(0.3) ? badQuery(r, 1).filter(([k]) => k !== 'timeoutSeconds') : [])]);
}

/** Headers no client should send, or that kube ignores; added to a few requests of every family. */
function oddHeader(r: Rng, req: FuzzRequest): void {
  const [k, v] = r.pick<[string, string]>([
    ['content-encoding', 'gzip'],
    ['content-encoding', 'garbage'],
    ['x-http-method-override', 'DELETE'],
    ['impersonate-user', 'system:admin'],
    ['authorization', 'Bearer not-a-token'],
    ['authorization', 'Basic !!!'],
    ['x-fuzz-big', 'h'.repeat(20_000)],
    ['x-fuzz-big', 'h'.repeat(200_000)],
    ['accept-language', 'x'.repeat(3000)],
    ['if-match', '*'],
    ['range', 'bytes=0-1'],
  ]);
  req.headers[k] = v;
  req.how.push(`header ${k}: ${v.slice(0, 30)}${v.length > 30 ? `... (${v.length})` : ''}`);
}

const FAMILIES = {
  create: 18,
  update: 12,
  patch: 20,
  delete: 8,
  deletecollection: 4,
  read: 17,
  watch: 4,
  subresource: 7,
  path: 10,
  upgrade: 3,
};
const GENERATORS: Record<keyof typeof FAMILIES, (r: Rng, req: FuzzRequest) => void> = {
  create: genCreate,
  update: genUpdate,
  patch: genPatch,
  delete: genDelete,
  deletecollection: genDeleteCollection,
  read: genRead,
  watch: genWatch,
  subresource: genSubresource,
  path: genPath,
  upgrade: genUpgrade,
};

/** Request `index` of the run with `seed`: the same pair always gives the same request. */
export function generateRequest(seed: number, index: number): FuzzRequest {
  const r = Rng.forRequest(seed, index);
  const family = r.weighted(FAMILIES);
  const req: FuzzRequest = { index, family, method: 'GET', path: '/', headers: {}, how: [] };
  GENERATORS[family](r, req);
  if (req.body && r.chance(0.1)) req.chunked = true;
  if (r.chance(0.05)) oddHeader(r, req);
  if (req.hostile && MUTATING.has(req.method)) req.how.push('hostile name or path');
  return req;
}
