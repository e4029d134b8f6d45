// Everything a create does to the request body before its transaction:
// decode and the decode-time checks, type and namespace checks, the name
// from generateName, server-set metadata, defaults, validation, and the
// admission plugins that look at the object alone (the caller's
// managedFields are worked out just before them, as kube's create handler
// does: what mutating admission adds is no manager's). It reads nothing from the
// store, so it runs the same on the main thread and on a create worker.
import type { AdmissionAttributes, AdmissionChain } from '../admission/types.ts';
import { checkNamespace, prepareCreate } from '../registry/lifecycle.ts';
import { generateNameFrom } from '../registry/names.ts';
import { asObjectOf, decodeBytes } from './decode-object.ts';
import type { StoredObject } from '../storage/types.ts';
import type { KubeObject } from '../registry/object.ts';
import type { NewObjectRequest, PreparedCreate } from './new-object-types.ts';

/** Prepares a create's object (parsed); throws the StatusError the client should get. */
export function prepareNewObject(
  req: NewObjectRequest,
  admission: AdmissionChain,
  attrs?: AdmissionAttributes,
  beforeAdmission?: (obj: KubeObject) => void,
): PreparedCreate<StoredObject> {
  const { rt } = req;
  const { obj: body, warnings } = decodeBytes(req.body, req.contentType, req.fieldValidation, {
    group: rt.group,
    version: rt.version,
    kind: rt.kind,
  });
  const obj = asObjectOf(rt, body);
  checkNamespace(rt, obj, req.namespace);
  const meta = obj.metadata;
  const generateName = !meta.name && typeof meta.generateName === 'string' && meta.generateName !== '' ? meta.generateName : undefined;
  // As kube's Store.Create: the name is generated first, so defaults (a Namespace's
  // kubernetes.io/metadata.name label) and validation see the name that is stored.
  if (generateName !== undefined) meta.name = generateNameFrom(generateName);
  prepareCreate(rt, obj, req.now, req.uid, req.user);
  // As kube's create handler: managedFields are worked out here, before mutating admission.
  beforeAdmission?.(obj);
  admission.admit('CREATE', rt, obj, undefined, 'object', attrs && { ...attrs, name: meta.name! });
  // prepareCreate refused an object without a name.
  return { value: obj, name: meta.name!, generateName, warnings };
}
