// The objects the history API names: "RESOURCE.GROUP" (or "RESOURCE" for the
// core group) and a name, in a namespace or not, to and from the storage keys
// history is kept under.
import { allResources, dynamicResourcesGeneration } from '../../shared/api/resources.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { ObjectRef } from '../../shared/api/history-types.ts';
import { objectKey } from '../registry/keys.ts';

/** The views of one object's history, each a subresource of its path. */
export const HISTORY_VIEWS = ['object', 'diff', 'blame', 'trace'] as const;

/** "deployments.apps", or "pods" for the core group. */
export const resourceSegment = (rt: Pick<ResourceType, 'plural' | 'group'>): string => (rt.group ? `${rt.plural}.${rt.group}` : rt.plural);

/** The served resource a "RESOURCE[.GROUP]" segment names (its first served version), if any. */
export function resourceOfSegment(segment: string): ResourceType | undefined {
  const dot = segment.indexOf('.');
  const plural = dot < 0 ? segment : segment.slice(0, dot);
  const group = dot < 0 ? '' : segment.slice(dot + 1);
  return allResources().find((rt) => rt.plural === plural && rt.group === group);
}

/** The storage key of `name` (in `namespace`) of `rt`. */
export const keyOfRef = (rt: ResourceType, namespace: string, name: string): string => objectKey(rt, namespace, name);

let prefixes: { generation: number; byPrefix: Map<string, ResourceType> } | undefined;

function resourcesByPrefix(): Map<string, ResourceType> {
  const generation = dynamicResourcesGeneration();
  if (prefixes?.generation !== generation) {
    const byPrefix = new Map<string, ResourceType>();
    for (const rt of allResources()) if (!byPrefix.has(rt.storagePrefix)) byPrefix.set(rt.storagePrefix, rt);
    prefixes = { generation, byPrefix };
  }
  return prefixes.byPrefix;
}

/** The object a storage key holds; undefined for a key no served resource stores under. */
export function refOfKey(key: string): ObjectRef | undefined {
  const byPrefix = resourcesByPrefix();
  // "/registry/<group>/<resource>/[<namespace>/]<name>": the prefix is the first three segments.
  const parts = key.split('/');
  const rt = byPrefix.get(parts.slice(0, 4).join('/'));
  if (!rt) return undefined;
  const rest = parts.slice(4);
  if (rt.namespaced && rest.length === 2) return { group: rt.group, resource: rt.plural, kind: rt.kind, namespace: rest[0], name: rest[1] };
  if (!rt.namespaced && rest.length === 1) return { group: rt.group, resource: rt.plural, kind: rt.kind, name: rest[0] };
  return undefined;
}
