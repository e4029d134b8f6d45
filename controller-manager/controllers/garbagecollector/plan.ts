// The garbage collector's decisions, as kube's attemptToDeleteItem makes
// them: classify an object's owner references (solid, dangling, waiting for
// a foreground deletion), decide what to do with the object, and build the
// patches that drop references and finalizers without clobbering others'
// writes. Pure functions: controller.ts does the reading and writing.
import type { KubeObject } from '../../../shared/api/object.ts';
import type { OwnerReference } from '../../../shared/controller/owner-refs.ts';
import { FOREGROUND, ORPHAN } from './graph.ts';

/** How an owner reference stands: its owner exists, does not (or is another object), or is being deleted in the foreground. */
export type RefClass = 'solid' | 'dangling' | 'waiting';

/** Classifies `ref` given the owner found by a live GET (undefined when it answered 404). */
export function classifyOwner(ref: OwnerReference, owner: KubeObject | undefined): RefClass {
  if (!owner || owner.metadata?.uid !== ref.uid) return 'dangling';
  if (owner.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes(FOREGROUND)) return 'waiting';
  return 'solid';
}

/** The propagation policies a DELETE can ask for. */
export type Propagation = 'Background' | 'Foreground' | 'Orphan';

/** What to do with an object whose owners have been classified. */
export type DependentAction =
  | { type: 'none' }
  /** Some owner still exists: only drop the references to the gone and the foreground-deleting ones. */
  | { type: 'removeRefs'; uids: string[] }
  /** Delete it; `unblock` first clears blockOwnerDeletion on its references to break a foreground cycle. */
  | { type: 'delete'; policy: Propagation; unblock: boolean };

/**
 * Decides for `latest` (the live object) given each reference's class and
 * whether any of its own dependents is itself deleting dependents.
 */
export function decideForDependent(
  latest: KubeObject,
  classes: Map<string, RefClass>,
  dependents: { count: number; anyDeletingDependents: boolean },
): DependentAction {
  const refs: OwnerReference[] = latest.metadata?.ownerReferences ?? [];
  if (refs.length === 0) return { type: 'none' };
  const of = (c: RefClass) => refs.filter((r) => classes.get(r.uid) === c).map((r) => r.uid);
  const solid = of('solid');
  const dangling = of('dangling');
  const waiting = of('waiting');
  if (solid.length > 0) {
    if (dangling.length === 0 && waiting.length === 0) return { type: 'none' };
    return { type: 'removeRefs', uids: [...dangling, ...waiting] };
  }
  if (waiting.length > 0 && dependents.count > 0) {
    // Foreground all the way down, so the owner waits for the grandchildren too.
    return { type: 'delete', policy: 'Foreground', unblock: dependents.anyDeletingDependents };
  }
  const finalizers: string[] = latest.metadata?.finalizers ?? [];
  const policy: Propagation = finalizers.includes(ORPHAN) ? 'Orphan' : finalizers.includes(FOREGROUND) ? 'Foreground' : 'Background';
  return { type: 'delete', policy, unblock: false };
}

/** A strategic merge patch removing the references to `ownerUids`, guarded by the dependent's uid. */
export function deleteOwnerRefsPatch(dependentUid: string, ownerUids: string[]): unknown {
  return { metadata: { ownerReferences: ownerUids.map((uid) => ({ $patch: 'delete', uid })), uid: dependentUid } };
}

/** A strategic merge patch turning every blockOwnerDeletion: true of `obj` to false. */
export function unblockOwnerRefsPatch(obj: KubeObject): unknown {
  const refs: OwnerReference[] = obj.metadata?.ownerReferences ?? [];
  return {
    metadata: {
      ownerReferences: refs.filter((r) => r.blockOwnerDeletion === true).map((r) => ({ ...r, blockOwnerDeletion: false })),
      uid: obj.metadata!.uid,
    },
  };
}

/**
 * A JSON patch removing `finalizer` from `obj`, which applies only if the
 * object (by uid) and its finalizers are still what we read; undefined when
 * there is nothing to remove.
 */
export function removeFinalizerPatch(obj: KubeObject, finalizer: string): unknown[] | undefined {
  const finalizers: string[] = obj.metadata?.finalizers ?? [];
  if (!finalizers.includes(finalizer)) return undefined;
  const rest = finalizers.filter((f) => f !== finalizer);
  return [
    { op: 'test', path: '/metadata/uid', value: obj.metadata!.uid },
    { op: 'test', path: '/metadata/finalizers', value: finalizers },
    // The last one out takes the field with it, as kube's patch (finalizers: null) does.
    rest.length > 0 ? { op: 'replace', path: '/metadata/finalizers', value: rest } : { op: 'remove', path: '/metadata/finalizers' },
  ];
}

/** The API group of an apiVersion: "apps/v1" -> "apps", "v1" -> "". */
export function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}
