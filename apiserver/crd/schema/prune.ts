// Pruning (kube's structural pruning): fields a structural schema does not
// declare are dropped, unless x-kubernetes-preserve-unknown-fields keeps
// them; apiVersion, kind and metadata of the object and of every
// x-kubernetes-embedded-resource are kept, metadata cut to ObjectMeta's
// fields. The dropped paths come back for fieldValidation (Strict refuses
// them, Warn warns: `unknown field "spec.foo"`).
import { childPath, isJsonObject, type JSONSchemaProps } from './types.ts';

/** metav1.ObjectMeta's JSON fields: anything else under metadata is unknown. */
const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** Prunes `obj` (a whole custom resource) in place; returns the pruned paths, sorted. */
export function pruneObject(obj: Record<string, unknown>, schema: JSONSchemaProps | undefined): string[] {
  const pruned: string[] = [];
  pruneResource(obj, schema ?? {}, '', pruned, true);
  return pruned.sort();
}

function pruneResource(obj: Record<string, unknown>, s: JSONSchemaProps, path: string, pruned: string[], preserveTypeMeta: boolean): void {
  if (preserveTypeMeta && isJsonObject(obj.metadata)) {
    for (const k of Object.keys(obj.metadata)) {
      if (!OBJECT_META_FIELDS.has(k)) {
        delete obj.metadata[k];
        pruned.push(childPath(childPath(path, 'metadata'), k));
      }
    }
  }
  pruneMembers(obj, s, path, pruned, preserveTypeMeta);
}

function pruneMembers(obj: Record<string, unknown>, s: JSONSchemaProps, path: string, pruned: string[], typeMeta: boolean): void {
  const props = s.properties ?? {};
  const extra = s.additionalProperties;
  for (const k of Object.keys(obj)) {
    if (typeMeta && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
    const sub = props[k] ?? (isJsonObject(extra) ? extra : undefined);
    if (sub) {
      pruneValue(obj[k], sub, childPath(path, k), pruned);
    } else if (!(s['x-kubernetes-preserve-unknown-fields'] || extra === true)) {
      delete obj[k];
      pruned.push(childPath(path, k));
    }
  }
}

/** Prunes inside one value (objects in place). */
export function pruneValue(v: unknown, s: JSONSchemaProps, path: string, pruned: string[]): void {
  if (Array.isArray(v)) {
    if (s.items) v.forEach((item, i) => pruneValue(item, s.items!, `${path}[${i}]`, pruned));
    return;
  }
  if (!isJsonObject(v)) return;
  if (s['x-kubernetes-embedded-resource']) pruneResource(v, s, path, pruned, true);
  else pruneMembers(v, s, path, pruned, false);
}
