// The garbage collector's ownership graph, as kube's GraphBuilder keeps it:
// one node per uid, observed through an informer or only known ("virtual")
// from a dependent's ownerReference, each with its dependents. Every change
// is applied synchronously and answers with the uids to queue for
// attemptToDelete or attemptToOrphan; nothing here talks to the API.
import type { OwnerReference } from '../../../shared/controller/owner-refs.ts';
import { LruCache } from '../../../shared/util/lru-cache.ts';

/** Where an object is: its coordinates and uid. Cluster-scoped objects have namespace ''. */
export interface Identity {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

/** One object in the graph. Nodes are mutated in place, so references to them stay valid. */
export interface GraphNode {
  identity: Identity;
  /** The ownerReferences last observed on the object ([] for a virtual node). */
  owners: OwnerReference[];
  dependents: Set<GraphNode>;
  /** Seen through an informer, rather than only named by a dependent. */
  observed: boolean;
  beingDeleted: boolean;
  /** Deleted with propagationPolicy Foreground: waits for its blocking dependents. */
  deletingDependents: boolean;
}

/** The deletion state of an observed object that the graph cares about. */
export interface ObservedObject {
  identity: Identity;
  owners: OwnerReference[];
  deletionTimestamp?: string;
  finalizers?: string[];
}

/** A uid to hand to a worker queue. */
export interface QueueAction {
  queue: 'delete' | 'orphan';
  uid: string;
  /** Retry later with backoff rather than at once. */
  rateLimited?: boolean;
}

export const FOREGROUND = 'foregroundDeletion';
export const ORPHAN = 'orphan';

/** A bounded LRU of owner identities verified absent, so dependents of one gone owner need one GET. */
export class ReferenceCache {
  private readonly keys: LruCache<true>;
  constructor(max = 500) {
    this.keys = new LruCache(max);
  }

  private static key(id: Identity): string {
    return [id.uid, id.apiVersion, id.kind, id.namespace, id.name].join('\u0000');
  }

  add(id: Identity): void {
    this.keys.set(ReferenceCache.key(id), true);
  }

  has(id: Identity): boolean {
    return this.keys.get(ReferenceCache.key(id)) === true;
  }
}

/** True when `ref` names exactly `id` (uid, name, kind and apiVersion). */
export function refMatches(ref: OwnerReference, id: Identity): boolean {
  return ref.uid === id.uid && ref.name === id.name && ref.kind === id.kind && ref.apiVersion === id.apiVersion;
}

function sameIdentity(a: Identity, b: Identity): boolean {
  return a.uid === b.uid && a.name === b.name && a.kind === b.kind && a.apiVersion === b.apiVersion && a.namespace === b.namespace;
}

const blocks = (ref: OwnerReference | undefined) => ref?.blockOwnerDeletion === true;

/** True when the object starts waiting for `finalizer` in this change (or is first seen waiting). */
export function startsWaiting(old: ObservedObject | undefined, cur: ObservedObject, finalizer: string): boolean {
  const waiting = (o: ObservedObject) => !!o.deletionTimestamp && (o.finalizers ?? []).includes(finalizer);
  if (!waiting(cur)) return false;
  return !old || !waiting(old);
}

/** Owner references added, removed and changed between two versions of an object, by uid. */
export function referencesDiffs(old: OwnerReference[], cur: OwnerReference[]) {
  const before = new Map(old.map((r) => [r.uid, r]));
  const after = new Map(cur.map((r) => [r.uid, r]));
  const added = cur.filter((r) => !before.has(r.uid));
  const removed = old.filter((r) => !after.has(r.uid));
  const changed: { old: OwnerReference; cur: OwnerReference }[] = [];
  for (const r of cur) {
    const o = before.get(r.uid);
    if (o && JSON.stringify(o) !== JSON.stringify(r)) changed.push({ old: o, cur: r });
  }
  return { added, removed, changed };
}

/**
 * Splits dependents into those whose reference to `owner` matches its
 * coordinates and those that name its uid with other coordinates (or sit in
 * another namespace than a namespaced owner). A dependent can be in both.
 */
export function partitionDependents(dependents: Iterable<GraphNode>, owner: Identity): { matching: GraphNode[]; nonmatching: GraphNode[] } {
  const matching: GraphNode[] = [];
  const nonmatching: GraphNode[] = [];
  for (const dep of dependents) {
    let match = false;
    let mismatch = false;
    if (owner.namespace && owner.namespace !== dep.identity.namespace) mismatch = true;
    else {
      for (const ref of dep.owners) {
        if (ref.uid !== owner.uid) continue;
        if (refMatches(ref, owner)) match = true;
        else mismatch = true;
      }
    }
    if (match) matching.push(dep);
    if (mismatch) nonmatching.push(dep);
  }
  return { matching, nonmatching };
}

/** Dependents whose reference to `owner` has blockOwnerDeletion: true. */
export function blockingDependents(owner: GraphNode): GraphNode[] {
  return [...owner.dependents].filter((dep) => blocks(dep.owners.find((r) => r.uid === owner.identity.uid)));
}

/** See the file comment. */
export class OwnershipGraph {
  private readonly nodes = new Map<string, GraphNode>();
  /** Owner identities verified absent. */
  readonly absent = new ReferenceCache(500);

  /** `namespaced(apiVersion, kind)` says whether a kind is namespaced; undefined for an unknown kind. */
  constructor(private readonly namespaced: (apiVersion: string, kind: string) => boolean | undefined) {}

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  get size(): number {
    return this.nodes.size;
  }

  /** An informer saw `cur` added or updated (from `old`, when it knew it). */
  observe(cur: ObservedObject, old?: ObservedObject): QueueAction[] {
    const out: QueueAction[] = [];
    const id = cur.identity;
    let node = this.nodes.get(id.uid);
    if (node && !node.observed) {
      if (!sameIdentity(node.identity, id)) {
        // Dependents that named this uid with other coordinates may be pointing at nothing.
        for (const dep of partitionDependents(node.dependents, id).nonmatching) out.push(del(dep));
        node.identity = id;
      }
      node.observed = true;
    }
    const beingDeleted = !!cur.deletionTimestamp;
    if (!node) {
      node = {
        identity: id,
        owners: [...cur.owners],
        dependents: new Set(),
        observed: true,
        beingDeleted,
        deletingDependents: beingDeleted && (cur.finalizers ?? []).includes(FOREGROUND),
      };
      this.nodes.set(id.uid, node);
      this.addDependentToOwners(node, node.owners, out);
    } else {
      const { added, removed, changed } = referencesDiffs(node.owners, cur.owners);
      if (added.length || removed.length || changed.length) {
        this.addUnblockedOwners(removed, changed, out);
        node.owners = [...cur.owners];
        this.addDependentToOwners(node, added, out);
        this.removeDependentFromOwners(node, removed);
      }
      if (beingDeleted) node.beingDeleted = true;
    }
    this.processTransitions(old, cur, node, out);
    return out;
  }

  /** An informer saw the object deleted. */
  observeDelete(id: Identity): QueueAction[] {
    const node = this.nodes.get(id.uid);
    if (!node) return [];
    return this.removeAndRequeue(node, id);
  }

  /**
   * A worker verified with a live GET that `id` does not exist (kube's
   * virtual delete event). A virtual node that other dependents name with
   * other coordinates stays, to be verified under those.
   */
  virtualDelete(id: Identity): QueueAction[] {
    const node = this.nodes.get(id.uid);
    if (!node) return [];
    const out: QueueAction[] = [];
    if (!node.observed) {
      const { matching, nonmatching } = partitionDependents(node.dependents, id);
      if (nonmatching.length > 0) {
        if (matching.length > 0) {
          this.absent.add(id);
          for (const dep of matching) out.push(del(dep));
        }
        if (sameIdentity(node.identity, id)) {
          const alternate = this.alternateIdentity(nonmatching, id);
          if (!alternate) return [...out, ...this.removeAndRequeue(node, id)];
          node.identity = alternate;
          out.push({ ...del(node), rateLimited: true });
        }
        return out;
      }
    } else if (!sameIdentity(node.identity, id)) {
      // The real object lives elsewhere: only dependents that named the absent coordinates are affected.
      const { nonmatching } = partitionDependents(node.dependents, node.identity);
      if (nonmatching.length > 0) {
        this.absent.add(id);
        for (const dep of nonmatching) out.push(del(dep));
      }
      return out;
    }
    return this.removeAndRequeue(node, id);
  }

  private removeAndRequeue(node: GraphNode, id: Identity): QueueAction[] {
    const out: QueueAction[] = [];
    this.nodes.delete(node.identity.uid);
    this.removeDependentFromOwners(node, node.owners);
    if (node.dependents.size > 0) this.absent.add(id);
    for (const dep of node.dependents) out.push(del(dep));
    for (const ref of node.owners) {
      const owner = this.nodes.get(ref.uid);
      // A foreground owner may have been waiting for this one.
      if (owner?.deletingDependents) out.push(del(owner));
    }
    return out;
  }

  private ownerIdentity(ref: OwnerReference, dependent: GraphNode): Identity {
    const namespaced = this.namespaced(ref.apiVersion, ref.kind);
    return {
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      name: ref.name,
      uid: ref.uid,
      namespace: namespaced === false ? '' : dependent.identity.namespace,
    };
  }

  private addDependentToOwners(node: GraphNode, refs: OwnerReference[], out: QueueAction[]): void {
    for (const ref of refs) {
      let owner = this.nodes.get(ref.uid);
      if (!owner) {
        // Only named so far: a worker verifies it exists.
        owner = {
          identity: this.ownerIdentity(ref, node),
          owners: [],
          dependents: new Set(),
          observed: false,
          beingDeleted: false,
          deletingDependents: false,
        };
        this.nodes.set(ref.uid, owner);
        out.push(del(owner));
      } else if (owner.observed) {
        const ownerNs = owner.identity.namespace;
        // A reference to an owner in another namespace, or with other coordinates, names nothing.
        if ((ownerNs && ownerNs !== node.identity.namespace) || !refMatches(ref, owner.identity)) out.push(del(node));
      }
      owner.dependents.add(node);
    }
  }

  private removeDependentFromOwners(node: GraphNode, refs: OwnerReference[]): void {
    for (const ref of refs) this.nodes.get(ref.uid)?.dependents.delete(node);
  }

  /** Owners waiting in foreground deletion that a dropped or unblocked reference may release. */
  private addUnblockedOwners(removed: OwnerReference[], changed: { old: OwnerReference; cur: OwnerReference }[], out: QueueAction[]): void {
    const release = (uid: string) => {
      const owner = this.nodes.get(uid);
      if (owner?.deletingDependents) out.push(del(owner));
    };
    for (const ref of removed) if (blocks(ref)) release(ref.uid);
    for (const c of changed) if (blocks(c.old) && !blocks(c.cur)) release(c.cur.uid);
  }

  private processTransitions(old: ObservedObject | undefined, cur: ObservedObject, node: GraphNode, out: QueueAction[]): void {
    if (startsWaiting(old, cur, ORPHAN)) {
      out.push({ queue: 'orphan', uid: node.identity.uid });
      return;
    }
    if (startsWaiting(old, cur, FOREGROUND)) {
      node.deletingDependents = true;
      for (const dep of node.dependents) out.push(del(dep));
      out.push(del(node));
    }
  }

  /** Another identity, not yet verified absent, that the nonmatching dependents give this uid (the first in a stable order). */
  private alternateIdentity(dependents: GraphNode[], absent: Identity): Identity | undefined {
    const candidates: Identity[] = [];
    for (const dep of dependents) {
      for (const ref of dep.owners) {
        if (ref.uid !== absent.uid) continue;
        const id = this.ownerIdentity(ref, dep);
        if (!sameIdentity(id, absent) && !this.absent.has(id)) candidates.push(id);
      }
    }
    const key = (i: Identity) => [i.apiVersion, i.kind, i.namespace, i.name].join('/');
    candidates.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    return candidates[0];
  }
}

function del(node: GraphNode): QueueAction {
  return { queue: 'delete', uid: node.identity.uid };
}
