// The history API (history.ksim.io/v1alpha1; the paths and objects are in
// shared/api/history-types.ts), served by the apiserver beside the resource
// table, as the metrics API is. Every request has been authorized for its
// path by then: the resource segment "deployments.apps" is what RBAC rules
// of the history.ksim.io group name, and the view (object, diff, blame,
// trace) is the subresource.
import type { IncomingMessage } from 'node:http';
import { badRequest, methodNotAllowed, notFound, StatusError } from '../../shared/api/errors.ts';
import {
  HISTORY_API_VERSION,
  HISTORY_GROUP,
  HISTORY_VERSION,
  type Change,
  type ChangeList,
  type FieldBlame,
  type ObjectRef,
  type Revision,
  type RevisionDiff,
  type RevisionList,
} from '../../shared/api/history-types.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import { queryFlag } from '../../shared/api/query-bool.ts';
import { decodeSegment, notFoundPath } from '../http/path-segments.ts';
import type { RequestUrl } from '../http/request-url.ts';
import type { ChangeInfo, History, RevisionInfo } from '../storage/history.ts';
import type { Store } from '../storage/store.ts';
import type { Authorizer } from '../auth/authorizer-types.ts';
import type { UserInfo } from '../auth/user-info.ts';
import { historyDiscovery } from './discovery.ts';
import { blame, fieldChanges } from './field-changes.ts';
import { limitParam, resourcePrefixesParam, revisionParam } from './query-params.ts';
import { changeItem, revisionOf, type MayRead } from './change-item.ts';
import { HISTORY_VIEWS, keyOfRef, resourceOfSegment } from './object-ref.ts';
import { rfc3339, traceOf } from './trace.ts';

const PREFIX = `/apis/${HISTORY_GROUP}`;
const VIEWS = new Set<string>(['', ...HISTORY_VIEWS]);
const MAX_WAIT_SECONDS = 60;

/** True for paths the history API answers. */
export function isHistoryApiPath(pathname: string): boolean {
  return pathname === PREFIX || pathname.startsWith(`${PREFIX}/`);
}

/** One object's path: which resource, object and view. */
interface ObjectPath {
  rt: ResourceType;
  ref: ObjectRef;
  key: string;
  view: string;
}

function parseObjectPath(parts: string[]): ObjectPath {
  let namespace = '';
  let rest = parts;
  if (rest[0] === 'namespaces' && rest.length >= 4) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [segment, name, view = '', ...extra] = rest;
  const rt = segment === undefined ? undefined : resourceOfSegment(segment);
  if (!rt || !name || extra.length || !VIEWS.has(view) || rt.namespaced !== (namespace !== '')) throw notFoundPath();
  const ref: ObjectRef = { group: rt.group, resource: rt.plural, kind: rt.kind, name };
  if (namespace) ref.namespace = namespace;
  return { rt, ref, key: keyOfRef(rt, namespace, name), view };
}

/** Every kept revision of `key`, oldest first. */
async function allRevisions(history: History, key: string): Promise<RevisionInfo[]> {
  const out: RevisionInfo[] = [];
  let token: string | undefined;
  do {
    const page = await history.revisionsOf(key, { continue: token });
    out.push(...page.items);
    token = page.continue;
  } while (token);
  return out;
}

function objectNotFound(p: ObjectPath, rev?: number): StatusError {
  const err = notFound({ group: p.rt.group, resource: p.rt.plural }, p.ref.name);
  if (rev === undefined) return err;
  return new StatusError(404, 'NotFound', `${err.message} at revision ${rev}`, err.details);
}

/** The revision `rev` of the object, or its newest; 404 when there is none. */
async function pickRevision(
  history: History,
  p: ObjectPath,
  rev: number | undefined,
  pick?: (r: RevisionInfo) => boolean,
): Promise<ChangeInfo> {
  const revisions = await allRevisions(history, p.key);
  let chosen: RevisionInfo | undefined;
  if (rev !== undefined) chosen = revisions.find((r) => r.rev === rev);
  else chosen = [...revisions].reverse().find((r) => pick?.(r) ?? true) ?? revisions[revisions.length - 1];
  if (!chosen) throw objectNotFound(p, rev);
  const [found] = await history.versions(p.key, [chosen.rev]);
  if (!found) throw objectNotFound(p, chosen.rev);
  return found;
}

/** Sets each update's `changed` fields: the paths of its diff from the version before it (a create or delete: none). */
async function addChangedFields(history: History, key: string, items: Revision[]): Promise<void> {
  if (items.length === 0) return;
  const first = Number(items[0].revision);
  // The version before the page's first, when the first is not a create.
  const previous = items[0].type === 'ADDED' ? undefined : await history.objectAt(key, first - 1).catch(() => undefined);
  const versions = new Map(
    (
      await history.versions(
        key,
        items.map((i) => Number(i.revision)),
      )
    ).map((v) => [String(v.rev), v]),
  );
  let before: unknown = previous && JSON.parse(previous.json);
  for (const item of items) {
    const v = versions.get(item.revision);
    const after = v && item.type !== 'DELETED' ? JSON.parse(v.json!) : undefined;
    if (v) item.changed = item.type === 'MODIFIED' ? fieldChanges(before, after).map((c) => c.path) : [];
    before = after;
  }
}

async function objectView(history: History, p: ObjectPath, query: URLSearchParams): Promise<unknown> {
  switch (p.view) {
    case '': {
      const page = await history.revisionsOf(p.key, { limit: limitParam(query), continue: query.get('continue') ?? undefined });
      if (page.items.length === 0 && !query.get('continue')) throw objectNotFound(p);
      const items = page.items.map(revisionOf);
      if (queryFlag(query, 'changes')) await addChangedFields(history, p.key, items);
      const list: RevisionList = {
        kind: 'RevisionList',
        apiVersion: HISTORY_API_VERSION,
        metadata: page.continue ? { continue: page.continue } : {},
        object: p.ref,
        items,
      };
      return list;
    }
    case 'object': {
      const rev = revisionParam(query, 'revision');
      const v = rev === undefined ? undefined : await history.objectAt(p.key, rev);
      if (rev === undefined) {
        const latest = await pickRevision(history, p, undefined, (r) => r.type !== 'DELETED');
        return JSON.parse(latest.json!);
      }
      if (!v) throw objectNotFound(p, rev);
      return JSON.parse(v.json);
    }
    case 'diff': {
      const revisions = await allRevisions(history, p.key);
      if (revisions.length === 0) throw objectNotFound(p);
      const to = revisionParam(query, 'to') ?? revisions[revisions.length - 1].rev;
      const before = revisions.filter((r) => r.rev < to);
      const from = revisionParam(query, 'from') ?? (before.length ? before[before.length - 1].rev : to);
      const [a, b] = await Promise.all([history.objectAt(p.key, from), history.objectAt(p.key, to)]);
      const diff: RevisionDiff = {
        kind: 'RevisionDiff',
        apiVersion: HISTORY_API_VERSION,
        object: p.ref,
        from: String(from),
        to: String(to),
        changes: fieldChanges(a && JSON.parse(a.json), b && JSON.parse(b.json)),
      };
      return diff;
    }
    case 'blame': {
      const rev = revisionParam(query, 'revision');
      let revisions = (await allRevisions(history, p.key)).filter((r) => rev === undefined || r.rev <= rev);
      // Only the object's current life: what an earlier object of the same name set is not its history.
      const lastDelete = revisions.map((r) => r.type).lastIndexOf('DELETED');
      if (lastDelete === revisions.length - 1) throw objectNotFound(p, rev);
      revisions = revisions.slice(lastDelete + 1);
      if (revisions.length === 0) throw objectNotFound(p, rev);
      const versions = await history.versions(
        p.key,
        revisions.map((r) => r.rev),
      );
      const out: FieldBlame = {
        kind: 'FieldBlame',
        apiVersion: HISTORY_API_VERSION,
        object: p.ref,
        revision: String(versions[versions.length - 1]?.rev ?? rev ?? ''),
        fields: blame(versions.map((v) => ({ revision: String(v.rev), time: rfc3339(v.at), writer: v.writer, obj: JSON.parse(v.json!) }))),
      };
      return out;
    }
    case 'trace': {
      // Without a revision: the newest write a user made (one without a component's cause), else the newest.
      const root = await pickRevision(history, p, revisionParam(query, 'revision'), (r) => !r.writer?.cause);
      return traceOf(history, root);
    }
  }
  throw notFoundPath();
}

export type { MayRead };

/** `mayRead` for `user`: kube's get on the object's resource, cached per resource and namespace for one request. */
export function mayReadAs(authorizer: Authorizer, user: UserInfo): MayRead {
  const answers = new Map<string, boolean>();
  return (ref) => {
    const key = `${ref.group}/${ref.resource}/${ref.namespace ?? ''}`;
    let ok = answers.get(key);
    if (ok === undefined) {
      const attrs = { user, verb: 'get', resourceRequest: true, path: '', apiGroup: ref.group, apiVersion: '', resource: ref.resource };
      ok = authorizer.authorize({ ...attrs, subresource: '', namespace: ref.namespace ?? '', name: '' }).decision === 'allow';
      answers.set(key, ok);
    }
    return ok;
  };
}

async function changes(store: Store, query: URLSearchParams, mayRead: MayRead): Promise<ChangeList> {
  // from=0: from the beginning.
  const from = query.get('from') === '0' ? 0 : (revisionParam(query, 'from') ?? 0);
  const to = revisionParam(query, 'to') ?? Number.MAX_SAFE_INTEGER;
  const wait = query.get('timeoutSeconds');
  if (wait !== null) {
    if (!/^\d{1,4}$/.test(wait)) throw badRequest(`timeoutSeconds: must be a non-negative integer, not ${JSON.stringify(wait)}`);
    const seconds = Math.min(Number(wait), MAX_WAIT_SECONDS);
    if (seconds > 0 && !query.get('continue')) await store.waitForRevision(from + 1, seconds * 1000);
  }
  const objects = queryFlag(query, 'objects');
  const page = await store.history.changesBetween(from, to, {
    limit: limitParam(query),
    continue: query.get('continue') ?? undefined,
    objects,
    keyPrefixes: resourcePrefixesParam(query),
  });
  const items = page.items.map((c) => changeItem(c, objects, mayRead));
  const metadata: ChangeList['metadata'] = { resourceVersion: String(store.revision) };
  if (page.continue) metadata.continue = page.continue;
  return { kind: 'ChangeList', apiVersion: HISTORY_API_VERSION, metadata, items };
}

/** A ChangeList as a meta.k8s.io/v1 Table: what `kubectl get changes` prints. */
export function changesTable(list: ChangeList): object {
  const col = (name: string, description: string, priority = 0) => ({ name, type: 'string', format: '', description, priority });
  const objectText = (c: Change) =>
    `${c.object.group ? `${c.object.resource}.${c.object.group}` : c.object.resource}/${c.object.namespace ? `${c.object.namespace}/` : ''}${c.object.name}`;
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: list.metadata,
    columnDefinitions: [
      col('Revision', 'The resourceVersion the write produced.'),
      col('Time', 'When the apiserver stored it.'),
      col('Type', 'ADDED, MODIFIED or DELETED.'),
      col('Object', 'RESOURCE.GROUP/NAMESPACE/NAME.'),
      col('Writer', 'The user who made the write.'),
      col('Verb', 'The request verb and subresource.'),
      col('Cause', 'The controller and key a component wrote for.', 1),
    ],
    rows: list.items.map((c) => ({
      cells: [
        c.revision,
        c.time,
        c.type,
        objectText(c),
        c.writer?.user ?? '',
        [c.writer?.verb, c.writer?.subresource].filter(Boolean).join(' '),
        c.writer?.cause ? `${c.writer.cause.controller}${c.writer.cause.key ? ` ${c.writer.cause.key}` : ''}` : '',
      ],
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: {} },
    })),
  };
}

/** Answers one history API request (already authorized): the JSON body; throws kube's Status errors. */
export async function serveHistory(
  store: Store,
  req: IncomingMessage,
  url: RequestUrl,
  mayRead: MayRead,
  view: 'object' | 'Table' = 'object',
): Promise<string> {
  const parts = url.pathname
    .split('/')
    .filter(Boolean)
    .map((s) => decodeSegment(s));
  // parts[0..1] are "apis", "history.ksim.io".
  if (parts.length === 2) return JSON.stringify(historyDiscovery.apiGroup());
  if (parts[2] !== HISTORY_VERSION) throw notFoundPath();
  const rest = parts.slice(3);
  if (rest.length === 0) return JSON.stringify(historyDiscovery.resourceList());
  const resource = rest.length === 1 ? rest[0] : (rest[rest[0] === 'namespaces' ? 2 : 0] ?? '');
  if (req.method !== 'GET' && req.method !== 'HEAD')
    throw methodNotAllowed((req.method ?? '').toLowerCase(), { group: HISTORY_GROUP, resource });
  if (queryFlag(url.searchParams, 'watch')) throw methodNotAllowed('watch', { group: HISTORY_GROUP, resource });
  if (rest.length === 1 && rest[0] === 'changes') {
    const list = await changes(store, url.searchParams, mayRead);
    return JSON.stringify(view === 'Table' ? changesTable(list) : list);
  }
  return JSON.stringify(await objectView(store.history, parseObjectPath(rest), url.searchParams));
}
