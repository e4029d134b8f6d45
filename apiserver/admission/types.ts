// The admission chain's vocabulary: plugins that see every write and may
// change the object or refuse it with a StatusError. Most only look at the
// object (and at data they are handed, such as the PriorityClasses), so a
// create can run them before its transaction, even on a create worker
// thread; a plugin that holds state which must change atomically with the
// write (IP allocation) is `transactional` and runs inside the transaction.
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { ObjectToStore, StoredObject } from '../storage/types.ts';
import type { UserInfo } from '../auth/user-info.ts';

/** A write operation, as kube's admission names them. */
export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/**
 * The request behind an admission call (kube's admission.Attributes beyond
 * the object): who asks, where, and whether it is a dry run. Absent only
 * where no request exists (bootstrap writes).
 */
export interface AdmissionAttributes {
  operation: Operation;
  user: UserInfo;
  namespace: string;
  name: string;
  subresource: string;
  dryRun: boolean;
  /** The request's audit ID: its trace (request-trace/) while kept. */
  requestID?: string;
  /** Called by the chain with each plugin that changed or refused the object, for the audit log. */
  record?: (plugin: string, verdict: 'mutated' | 'refused', detail?: string) => void;
  /** Collects warnings for the client (sent as Warning headers). */
  warn?: (message: string) => void;
  /** Adds an annotation to the request's audit event (kube's audit annotations, e.g. pod-security.kubernetes.io/audit-violations). */
  annotate?: (key: string, value: string) => void;
}

/**
 * Which plugins a call runs: all; only those that look at the object alone
 * (they may run on a create worker); only those that read the store or the
 * user (the main thread, before the transaction); or only the transactional ones.
 */
export type AdmissionStage = 'all' | 'object' | 'context' | 'transaction';

/** One admission plugin. Hooks run synchronously; a mutating hook returns true when it changed the object. */
export interface AdmissionPlugin {
  name: string;
  /** True when the plugin must run inside the store transaction (it holds state of its own). */
  transactional?: boolean;
  /** True when the plugin reads the store or the user: it never runs on a create worker. */
  contextual?: boolean;
  /** The resources the plugin acts on (all when absent). */
  appliesTo?(rt: ResourceType): boolean;
  /**
   * Whether a contextual plugin has anything to do for this request, judged
   * without the object (say, no LimitRange in the namespace): when no plugin
   * has, a create may be prepared on a worker. True when absent.
   */
  wanted?(rt: ResourceType, attrs: AdmissionAttributes): boolean;
  /** Mutating admission: may change `obj` (an object of `rt`'s kind); throws a StatusError to refuse the write. */
  admit?(op: Operation, rt: ResourceType, obj: ObjectToStore, old?: StoredObject, attrs?: AdmissionAttributes): boolean | void;
  /** Validating admission, after every mutating hook: throws a StatusError to refuse the write. */
  validate?(op: Operation, rt: ResourceType, obj: ObjectToStore, old?: StoredObject, attrs?: AdmissionAttributes): void;
  /** Admission of a delete (NamespaceLifecycle, NodeRestriction): `obj` is the stored object. */
  admitDelete?(rt: ResourceType, obj: StoredObject, attrs: AdmissionAttributes): void;
  /** Called once a delete has committed (to release what the object held). */
  deleted?(rt: ResourceType, obj: StoredObject): void;
}

function inStage(p: AdmissionPlugin, stage: AdmissionStage): boolean {
  if (stage === 'all') return true;
  if (p.transactional) return stage === 'transaction';
  return stage === (p.contextual ? 'context' : 'object');
}

/** The chain every write goes through, in order. */
export class AdmissionChain {
  constructor(private readonly plugins: AdmissionPlugin[]) {}

  get names(): string[] {
    return this.plugins.map((p) => p.name);
  }

  /** Runs the mutating hooks of `stage`'s plugins, then their validating hooks. */
  admit(
    op: Operation,
    rt: ResourceType,
    obj: ObjectToStore,
    old?: StoredObject,
    stage: AdmissionStage = 'all',
    attrs?: AdmissionAttributes,
  ): void {
    const plugins = this.plugins.filter((p) => inStage(p, stage) && (p.appliesTo?.(rt) ?? true));
    for (const p of plugins) {
      if (!p.admit) continue;
      const changed = this.run(p, attrs, () => p.admit!(op, rt, obj, old, attrs));
      if (changed === true) attrs?.record?.(p.name, 'mutated');
    }
    for (const p of plugins) if (p.validate) this.run(p, attrs, () => p.validate!(op, rt, obj, old, attrs));
  }

  /** Admits the delete of `obj`; throws the StatusError of the first plugin that refuses it. */
  admitDelete(rt: ResourceType, obj: StoredObject, attrs: AdmissionAttributes): void {
    for (const p of this.plugins) {
      if (p.admitDelete && (p.appliesTo?.(rt) ?? true)) this.run(p, attrs, () => p.admitDelete!(rt, obj, attrs));
    }
  }

  /** Whether a contextual plugin has work for a write of `rt` (then the create is not prepared on a worker). */
  needsContext(rt: ResourceType, attrs: AdmissionAttributes): boolean {
    return this.plugins.some((p) => p.contextual && !p.transactional && (p.appliesTo?.(rt) ?? true) && (p.wanted?.(rt, attrs) ?? true));
  }

  private run<T>(p: AdmissionPlugin, attrs: AdmissionAttributes | undefined, hook: () => T): T {
    try {
      return hook();
    } catch (err) {
      attrs?.record?.(p.name, 'refused', err instanceof Error ? err.message : String(err));
      throw err;
    }
  }

  /** Whether a write of `rt` needs a transactional plugin (and so cannot be admitted ahead of its transaction alone). */
  needsTransaction(rt: ResourceType, attrs?: AdmissionAttributes): boolean {
    return this.plugins.some((p) => p.transactional && (p.appliesTo?.(rt) ?? true) && (!attrs || (p.wanted?.(rt, attrs) ?? true)));
  }

  deleted(rt: ResourceType, obj: StoredObject): void {
    for (const p of this.plugins) p.deleted?.(rt, obj);
  }
}
