// The shapes a create's object is prepared in, shared by the handlers and
// the create workers that prepare objects off the main thread. Types only:
// the handlers' context names the preparer without importing what prepares.
import type { UserInfo } from '../auth/user-info.ts';
import type { TraceSink } from '../../shared/api/request-trace-types.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { SerializedObject } from '../storage/serialized-object.ts';
import type { StoredObject } from '../storage/types.ts';

/** What a create sends to be prepared. */
export interface NewObjectRequest {
  rt: ResourceType;
  /** The namespace of the request path ('' for cluster-scoped resources). */
  namespace: string;
  body: Buffer;
  contentType: string | undefined;
  fieldValidation: string | null;
  now: Date;
  uid: string;
  /** Who asks (plain data, so it crosses to a create worker): a CSR records its requestor. */
  user?: UserInfo;
}

/** A prepared object: parsed (prepared on this thread) or serialized but for its resourceVersion (on a create worker). */
export interface PreparedCreate<Value = StoredObject | SerializedObject> {
  value: Value;
  name: string;
  /** The generateName the name was made from, when it was (a collision is retried with another suffix). */
  generateName?: string;
  warnings: string[];
}

/**
 * Prepares new objects away from the main thread (the create workers). The
 * handlers own this interface and the worker pool implements it, so the
 * pool depends on the handlers and never the other way round.
 */
export interface NewObjectPreparer {
  /**
   * The prepared create, or undefined when no worker can take it now (the
   * caller prepares it itself). The admission steps the worker took, allowed
   * or denied, are added to `trace` when there is one.
   */
  prepare(req: NewObjectRequest, trace?: TraceSink): Promise<PreparedCreate | undefined>;
}
