// The app's reads, all through the UI server's /api (never the apiserver
// directly): history of one object, a diff, blame, and object lists.
import type { FieldBlame, ObjectRef, RevisionDiff, RevisionList } from '../../shared/api/history-types.ts';

/** A failed read, with the apiserver's message when it sent a Status. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** GETs `path` and parses the JSON; throws ApiError on a non-2xx answer. */
export async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { headers: { Accept: 'application/json' } });
  const body = await res.json().catch(() => undefined);
  if (!res.ok) throw new ApiError(res.status, (body as { message?: string } | undefined)?.message ?? `HTTP ${res.status}`);
  return body as T;
}

/** The UI server's path of an object's history ("/api/history/namespaces/default/deployments.apps/web"). */
export function historyPath(ref: ObjectRef): string {
  const ns = ref.namespace ? `/namespaces/${encodeURIComponent(ref.namespace)}` : '';
  const resource = ref.group ? `${ref.resource}.${ref.group}` : ref.resource;
  return `/api/history${ns}/${resource}/${encodeURIComponent(ref.name)}`;
}

/** The revisions of one object. */
export const fetchRevisions = (ref: ObjectRef) => getJson<RevisionList>(historyPath(ref));

/** What changed between two revisions of one object. */
export const fetchDiff = (ref: ObjectRef, from: string, to: string) =>
  getJson<RevisionDiff>(`${historyPath(ref)}/diff?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);

/** Who last set each field, as of `revision`. */
export const fetchBlame = (ref: ObjectRef, revision: string) =>
  getJson<FieldBlame>(`${historyPath(ref)}/blame?revision=${encodeURIComponent(revision)}`);

/** The object as it was at `revision`. */
export const fetchObjectAt = (ref: ObjectRef, revision: string) =>
  getJson<unknown>(`${historyPath(ref)}/object?revision=${encodeURIComponent(revision)}`);

/** The items of one list the graph draws ("deployments.apps"). */
export async function fetchObjects(resource: string, namespace: string): Promise<any[]> {
  const list = await getJson<{ items?: any[] }>(
    `/api/objects?resource=${encodeURIComponent(resource)}&namespace=${encodeURIComponent(namespace)}`,
  );
  return list.items ?? [];
}
