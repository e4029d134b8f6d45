// Adoption and release, as kube's ControllerRefManager does them, and the
// status write every workload controller shares. An owner
// claims the candidates its selector matches that have no controller
// (adopting them with a controller ownerReference) and lets go of those it
// controls that no longer match. Used by every workload controller.
import { StatusError } from '../api/errors.ts';
import type { KubeObject } from '../api/object.ts';
import type { ResourceType } from '../api/resource-type.ts';
import type { KubeClient } from '../client/kube-client.ts';
import { controllerOf, controllerRef } from './owner-refs.ts';

/** What claiming needs to know and do, for candidates of type `T` (e.g. Pods of a ReplicaSet). */
export interface ClaimSpec<T extends KubeObject> {
  /** The owner, as read from the apiserver: it has a name and a uid. */
  owner: KubeObject;
  ownerApiVersion: string;
  ownerKind: string;
  candidates: T[];
  selects: (obj: T) => boolean;
  /** Applies a strategic merge patch to a candidate. */
  patch: (obj: T, patch: unknown) => Promise<unknown>;
}

/** Returns the candidates the owner controls after adopting and releasing. */
export async function claim<T extends KubeObject>(spec: ClaimSpec<T>): Promise<T[]> {
  const meta = spec.owner.metadata!;
  const uid = meta.uid;
  const owned: T[] = [];
  const writes: Promise<void>[] = [];
  for (const obj of spec.candidates) {
    const ref = controllerOf(obj);
    const matches = spec.selects(obj);
    if (ref?.uid === uid) {
      if (matches) owned.push(obj);
      else if (!meta.deletionTimestamp) {
        writes.push(
          ignoreNotFound(spec.patch(obj, { metadata: { ownerReferences: [{ $patch: 'delete', uid }], uid: obj.metadata!.uid } })),
        );
      }
    } else if (!ref && matches && !meta.deletionTimestamp && !obj.metadata!.deletionTimestamp) {
      const owner = { metadata: { name: meta.name!, uid: uid! } };
      writes.push(
        ignoreNotFound(
          spec.patch(obj, {
            metadata: { ownerReferences: [controllerRef(owner, spec.ownerApiVersion, spec.ownerKind)], uid: obj.metadata!.uid },
          }),
        ),
      );
      owned.push(obj);
    }
  }
  await Promise.all(writes);
  return owned;
}

/** Awaits `p`, treating 404 Not Found as success (the object is gone already). */
export async function ignoreNotFound(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 404)) throw err;
  }
}

/**
 * Writes `status` to the status subresource of `obj`, re-reading the object
 * once if the cached copy was stale (409): status is computed from other
 * objects, so the latest version takes it as well as the cached one.
 */
export async function writeStatus<T extends KubeObject>(
  client: KubeClient,
  rt: ResourceType,
  obj: T,
  status: unknown,
): Promise<T | undefined> {
  try {
    return await client.update<T>(rt, { ...obj, status }, 'status');
  } catch (err) {
    if (err instanceof StatusError && err.code === 404) return undefined;
    if (!(err instanceof StatusError && err.code === 409)) throw err;
    const fresh = await client.get<T>(rt, obj.metadata!.namespace, obj.metadata!.name!);
    return client.update<T>(rt, { ...fresh, status }, 'status');
  }
}
