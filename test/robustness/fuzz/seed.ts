// Stores the seed corpus before a fuzz run and takes a snapshot of every
// protected object (its exact bytes) and of the names in each protected
// collection, to compare with after the run.
import http from 'node:http';
import https from 'node:https';
import { api, tlsFor, type ApiTarget } from '../../helpers/index.ts';
import { KINDS, objectPath, PROTECTED_CLUSTER_NAMES, PROTECTED_NS, seedObjects, type KindSpec } from './corpus.ts';

/** The exact answers for protected objects and collections. */
export interface Snapshot {
  /** Path -> body text of GET (application/json). */
  objects: Map<string, string>;
  /** Collection path -> sorted names. */
  collections: Map<string, string[]>;
}

const clients = new WeakMap<ApiTarget, ReturnType<typeof api>>();

/** A plain JSON request (valid paths only), as the target's admin. */
export async function jsonRequest(
  base: ApiTarget,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  let c = clients.get(base);
  if (!c) clients.set(base, (c = api(base)));
  // The text, not the parsed body: snapshots compare the exact bytes.
  const res = await c.request(method, path, body);
  return { status: res.status, text: res.text };
}

/** Stores every seed object; throws on any refusal (the corpus must be valid). */
export async function storeSeeds(base: ApiTarget): Promise<void> {
  for (const s of seedObjects()) {
    if (s.spec.kind === 'Namespace' && ['default', 'kube-system'].includes(s.name)) continue;
    const res = await jsonRequest(base, 'POST', objectPath(s.spec, s.namespace, ''), s.spec.make(s.namespace, s.name));
    if (res.status !== 201 && res.status !== 409)
      throw new Error(`seeding ${s.spec.kind} ${s.namespace}/${s.name}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
  }
}

const protectedCollections = (): { spec: KindSpec; ns: string }[] =>
  KINDS.flatMap((spec) => (spec.namespaced ? PROTECTED_NS.map((ns) => ({ spec, ns })) : []));

/** Reads the protected objects and collections. */
export async function snapshot(base: ApiTarget): Promise<Snapshot> {
  const objects = new Map<string, string>();
  const collections = new Map<string, string[]>();
  for (const s of seedObjects().filter((o) => o.protected)) {
    const path = objectPath(s.spec, s.namespace, s.name);
    objects.set(path, (await jsonRequest(base, 'GET', path)).text);
  }
  for (const [plural, names] of Object.entries(PROTECTED_CLUSTER_NAMES)) {
    const spec = KINDS.find((k) => k.plural === plural)!;
    for (const name of names) {
      const path = objectPath(spec, '', name);
      const res = await jsonRequest(base, 'GET', path);
      if (res.status === 200 || objects.has(path)) objects.set(path, res.text);
    }
  }
  for (const { spec, ns } of protectedCollections()) {
    const path = objectPath(spec, ns, '');
    const res = await jsonRequest(base, 'GET', path);
    const names = res.status === 200 ? (JSON.parse(res.text).items ?? []).map((i: any) => i.metadata?.name).sort() : [`HTTP ${res.status}`];
    collections.set(path, names);
  }
  return { objects, collections };
}

/** Differences between two snapshots, one line each. */
export function compareSnapshots(before: Snapshot, after: Snapshot): string[] {
  const diffs: string[] = [];
  for (const [path, text] of before.objects) {
    const now = after.objects.get(path);
    if (now !== text) diffs.push(`${path} changed:\n${firstDifference(text, now ?? '(missing)')}`);
  }
  for (const [path, names] of before.collections) {
    const now = after.collections.get(path) ?? [];
    if (JSON.stringify(now) !== JSON.stringify(names)) diffs.push(`${path} holds [${now.join(', ')}], had [${names.join(', ')}]`);
  }
  return diffs;
}

/** Both texts around where they first differ (the first 300 characters when they differ at once). */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 120);
  const cut = (t: string) => `${from > 0 ? '...' : ''}${t.slice(from, i + 240)}`;
  return `    before ${cut(a)}\n    after  ${cut(b)}`;
}

/** True when GET /readyz answers 200 (verifying the server with the target's CA over https). */
export function ready(target: ApiTarget): Promise<boolean> {
  const u = new URL(target.url);
  const { tls } = tlsFor(target);
  const options = { host: u.hostname, port: Number(u.port), path: '/readyz', agent: false as const, timeout: 5000 };
  return new Promise((resolve) => {
    const answered = (res: http.IncomingMessage): void => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    };
    const req = tls ? https.get({ ...options, ...tls }, answered) : http.get(options, answered);
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}
