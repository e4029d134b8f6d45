// Everything a create does to the request body before its transaction:
// decode and the decode-time checks, type and namespace checks, the name
// from generateName, server-set metadata, defaults, validation, and the
// admission plugins that look at the object alone. It reads nothing from the
// store, so it runs the same on the main thread and on a create worker.
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { AdmissionChain } from '../admission/types.ts';
import { checkNamespace, checkTypeMeta, prepareCreate } from '../registry/lifecycle.ts';
import { generateNameFrom } from '../registry/names.ts';
import type { SerializedObject } from '../storage/serialized-object.ts';
import { decodeBytes } from './decode-object.ts';

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
}

/** A prepared object: parsed (prepared on this thread) or serialized but for its resourceVersion (on a create worker). */
export interface PreparedCreate {
  value: any | SerializedObject;
  name: string;
  /** The generateName the name was made from, when it was (a collision is retried with another suffix). */
  generateName?: string;
  warnings: string[];
}

/** Prepares a create's object (parsed); throws the StatusError the client should get. */
export function prepareNewObject(req: NewObjectRequest, admission: AdmissionChain): PreparedCreate {
  const { rt } = req;
  const { obj, warnings } = decodeBytes(req.body, req.contentType, req.fieldValidation, { group: rt.group, version: rt.version, kind: rt.kind });
  checkTypeMeta(rt, obj);
  checkNamespace(rt, obj, req.namespace);
  const meta = obj.metadata;
  const generateName = !meta.name && typeof meta.generateName === 'string' && meta.generateName !== '' ? (meta.generateName as string) : undefined;
  // As kube's Store.Create: the name is generated first, so defaults (a Namespace's
  // kubernetes.io/metadata.name label) and validation see the name that is stored.
  if (generateName !== undefined) meta.name = generateNameFrom(generateName);
  prepareCreate(rt, obj, req.now, req.uid);
  admission.admit('CREATE', rt, obj, undefined, 'object');
  return { value: obj, name: meta.name, generateName, warnings };
}
