// Everything a create does to the request body before its transaction:
// decode and the decode-time checks, type and namespace checks, the name
// from generateName, server-set metadata, defaults, validation, and the
// admission plugins that look at the object alone. It reads nothing from the
// store, so it runs the same on the main thread and on a create worker.
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { AdmissionChain } from '../admission/types.ts';
import { checkNamespace, checkTypeMeta, prepareCreate } from '../registry/lifecycle.ts';
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

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** A random 5-character suffix from kube's alphabet (no vowels, no confusable digits). */
export function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += SUFFIX_ALPHABET[Math.floor(Math.random() * SUFFIX_ALPHABET.length)];
  return s;
}

/** Prepares a create's object (parsed); throws the StatusError the client should get. */
export function prepareNewObject(req: NewObjectRequest, admission: AdmissionChain): PreparedCreate {
  const { rt } = req;
  const { obj, warnings } = decodeBytes(req.body, req.contentType, req.fieldValidation, { group: rt.group, version: rt.version, kind: rt.kind });
  checkTypeMeta(rt, obj);
  checkNamespace(rt, obj, req.namespace);
  const meta = obj.metadata;
  const generateName = !meta.name && typeof meta.generateName === 'string' && meta.generateName !== '' ? (meta.generateName as string) : undefined;
  // Validation sees the generateName itself (its errors name metadata.generateName); the suffix comes after.
  prepareCreate(rt, obj, req.now, req.uid);
  if (generateName !== undefined) meta.name = generateName + randomSuffix();
  admission.admit('CREATE', rt, obj, undefined, 'object');
  return { value: obj, name: meta.name, generateName, warnings };
}
