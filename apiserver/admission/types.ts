// The admission chain's vocabulary: plugins that see every write inside its
// transaction (so what they decide is atomic with the write) and may change
// the object or refuse it with a StatusError.
import type { ResourceType } from '../../shared/api/resource-type.ts';

/** A write operation, as kube's admission names them. */
export type Operation = 'CREATE' | 'UPDATE';

/** One admission plugin. Hooks run synchronously inside the store transaction. */
export interface AdmissionPlugin {
  name: string;
  /** May mutate `obj`; throws a StatusError to refuse the write. */
  admit?(op: Operation, rt: ResourceType, obj: any, old?: any): void;
  /** Called once a delete has committed (to release what the object held). */
  deleted?(rt: ResourceType, obj: any): void;
}

/** The chain every write goes through, in order. */
export class AdmissionChain {
  constructor(private readonly plugins: AdmissionPlugin[]) {}

  admit(op: Operation, rt: ResourceType, obj: any, old?: any): void {
    for (const p of this.plugins) p.admit?.(op, rt, obj, old);
  }

  deleted(rt: ResourceType, obj: any): void {
    for (const p of this.plugins) p.deleted?.(rt, obj);
  }
}
