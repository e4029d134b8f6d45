// Finds the served resource an experiment names: `pods`, `deployments`,
// `deployments.apps` (plural, optionally with its group), or a manifest's
// apiVersion and kind; and applies manifests with server-side apply, as
// `kubectl apply --server-side --force-conflicts` does.
import { allResources, findResourceByKind } from '../../../shared/api/resources.ts';
import type { ResourceType } from '../../../shared/api/resource-type.ts';
import { KubeClient } from '../../../shared/client/kube-client.ts';
import type { Manifest } from './spec.ts';

/** The field manager of everything an experiment applies. */
export const FIELD_MANAGER = 'ksim-experiment';

/** The resource `name` names; throws with a clear message when none does. */
export function resolveResource(name: string): ResourceType {
  const dot = name.indexOf('.');
  const plural = dot < 0 ? name : name.slice(0, dot);
  const group = dot < 0 ? undefined : name.slice(dot + 1);
  const matches = allResources().filter(
    (rt) =>
      (rt.plural === plural || rt.singular === plural || rt.shortNames.includes(plural)) && (group === undefined || rt.group === group),
  );
  if (matches.length === 0) throw new Error(`unknown resource "${name}"`);
  // As kubectl does, prefer the core group, then the first group in the table.
  return matches.find((rt) => rt.group === '') ?? matches[0];
}

/** The resource of a manifest's apiVersion and kind. */
export function resourceOfManifest(m: Manifest): ResourceType {
  const slash = m.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : m.apiVersion.slice(0, slash);
  const version = slash < 0 ? m.apiVersion : m.apiVersion.slice(slash + 1);
  const rt = findResourceByKind(group, m.kind);
  if (!rt || rt.version !== version) throw new Error(`${m.apiVersion} ${m.kind} is not a served kind`);
  return rt;
}

/** Server-side applies `m` (namespace "default" when a namespaced manifest names none). */
export async function applyManifest(client: KubeClient, m: Manifest): Promise<void> {
  const rt = resourceOfManifest(m);
  const namespace = rt.namespaced ? (m.metadata.namespace ?? 'default') : undefined;
  await client.request('PATCH', KubeClient.path(rt, namespace, m.metadata.name), {
    body: m,
    contentType: 'application/apply-patch+yaml',
    query: { fieldManager: FIELD_MANAGER, force: true },
    discardBody: true,
  });
}
