// The read views kube clients ask for in their Accept header: the objects
// themselves, a meta.k8s.io/v1 Table (server-side printing, what `kubectl
// get` shows), or PartialObjectMetadata (what metadata informers read).
import type { ResourceType } from '../../shared/api/resource-type.ts';
import { tableFor } from '../printers/index.ts';
import type { StoredObject } from '../storage/types.ts';
import type { ResponseView } from './codec.ts';

/** A list page as the list handler produced it. */
export interface ListPage {
  items: string[];
  rev: number;
  continue?: string;
  remaining?: number;
}

type IncludeObject = 'None' | 'Metadata' | 'Object';

function includeObjectOf(query: URLSearchParams): IncludeObject {
  const v = query.get('includeObject');
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}

function partial(obj: StoredObject): object {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

function listMeta(page: ListPage): Record<string, unknown> {
  const meta: Record<string, unknown> = { resourceVersion: String(page.rev) };
  if (page.continue) meta.continue = page.continue;
  if (page.remaining) meta.remainingItemCount = page.remaining;
  return meta;
}

/** Renders one object in `view`. */
export function renderObject(view: ResponseView, rt: ResourceType, json: string, query: URLSearchParams, now: Date): string {
  if (view === 'object') return json;
  const obj = JSON.parse(json) as StoredObject;
  if (view === 'PartialObjectMetadata') return JSON.stringify(partial(obj));
  return JSON.stringify(
    tableFor(rt, [obj], { now, includeObject: includeObjectOf(query), listMeta: { resourceVersion: obj.metadata?.resourceVersion } }),
  );
}

/** Renders a list page in `view` (the 'object' view is built by the list handler itself). */
export function renderList(view: ResponseView, rt: ResourceType, page: ListPage, query: URLSearchParams, now: Date): string {
  const objects = page.items.map((j) => JSON.parse(j) as StoredObject);
  if (view === 'PartialObjectMetadata') {
    return JSON.stringify({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: listMeta(page),
      items: objects.map(partial),
    });
  }
  return JSON.stringify(tableFor(rt, objects, { now, includeObject: includeObjectOf(query), listMeta: listMeta(page) }));
}

/** How a watch renders its event objects. */
export interface WatchView {
  /** True when objects go out as they are stored (so encodings can be shared between watchers). */
  plain?: boolean;
  /** Set when `object` depends on the object alone: every watcher with this key renders the same text, so encodings can be shared. */
  shareKey?: string;
  object: (json: string) => string;
  bookmark: (rev: number, initialEventsEnd: boolean) => string;
}

/** The watch rendering for `view`; a Table watch sends column definitions with its first row only, as kube does. */
export function watchView(
  view: ResponseView,
  rt: ResourceType,
  query: URLSearchParams,
  now: () => Date,
  plainBookmark: (rev: number, end: boolean) => string,
): WatchView {
  if (view === 'object') return { plain: true, object: (json) => json, bookmark: plainBookmark };
  if (view === 'PartialObjectMetadata') {
    return {
      // The apiVersion is part of the key: the same storage can be served through two APIs.
      shareKey: `PartialObjectMetadata\u0000${rt.group}/${rt.version}`,
      object: (json) => JSON.stringify(partial(JSON.parse(json))),
      bookmark: (rev, end) => JSON.stringify(partial(JSON.parse(plainBookmark(rev, end)))),
    };
  }
  let headersSent = false;
  const includeObject = includeObjectOf(query);
  return {
    object(json) {
      const obj = JSON.parse(json) as StoredObject;
      const table = tableFor(rt, [obj], { now: now(), includeObject, listMeta: { resourceVersion: obj.metadata?.resourceVersion } });
      if (headersSent) table.columnDefinitions = [];
      headersSent = true;
      return JSON.stringify(table);
    },
    bookmark(rev, end) {
      const meta = JSON.parse(plainBookmark(rev, end)).metadata;
      return JSON.stringify({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: meta, columnDefinitions: [], rows: [] });
    },
  };
}
