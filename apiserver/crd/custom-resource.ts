// The write rules of custom resources (kube's customresource strategy): the
// status subresource owns status when it is enabled, generation is tracked,
// and every write is pruned, defaulted and validated against the version's
// structural schema and CEL rules. Unknown fields pruned away answer as
// fieldValidation asks: Strict refuses them, Warn warns, Ignore says nothing.
import { badRequest } from '../../shared/api/errors.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { FieldError } from '../registry/kinds/field.ts';
import type { KubeObject } from '../registry/object.ts';
import type { Strategy } from '../registry/strategy-types.ts';
import { evaluateRules } from './cel.ts';
import { customResourceInfo, type CustomResourceInfo } from './registry.ts';
import { customRequest } from './request-context.ts';
import { applyDefaults, pruneObject, validateValue } from './schema/index.ts';

/** Prunes and defaults a written object; reports pruned fields per the request's fieldValidation. */
export function pruneAndDefault(info: CustomResourceInfo, obj: KubeObject): void {
  // Stored as the storage version, whichever version it was written through (conversion None: the apiVersion only).
  obj.apiVersion = `${info.rt.group}/${info.storageVersion}`;
  const pruned = pruneObject(obj as unknown as Record<string, unknown>, info.schema);
  applyDefaults(obj, info.schema);
  const req = customRequest.getStore();
  if (!req || pruned.length === 0) return;
  const texts = pruned.map((p) => `unknown field "${p}"`);
  if (req.fieldValidation === 'Strict') {
    // kube's create and update handlers pass a decoding failure through transformDecodeError; the patch handler does not.
    const { kind, version } = info.rt;
    const prefix = req.verb === 'patch' ? '' : `${kind} in version "${version}" cannot be handled as a ${kind}: `;
    throw badRequest(`${prefix}strict decoding error: ${texts.join(', ')}`);
  }
  if (req.fieldValidation === 'Warn') for (const t of texts) if (!req.warnings.includes(t)) req.warnings.push(t);
}

/** The schema and CEL errors of an object (`old` on update). */
export function validateCustomResource(info: CustomResourceInfo, obj: KubeObject, old?: KubeObject): FieldError[] {
  const errs = validateValue(obj, info.schema);
  // kube runs the CEL rules only on objects the schema accepts.
  if (errs.length === 0) errs.push(...evaluateRules(obj, old, info.schema));
  return errs;
}

const strategies = new WeakMap<ResourceType, Strategy>();

/** The strategy of a custom resource, or undefined when `rt` is not one. */
export function customResourceStrategy(rt: ResourceType): Strategy | undefined {
  const info = customResourceInfo(rt);
  if (!info) return undefined;
  let s = strategies.get(rt);
  if (!s) {
    const status = rt.subresources.includes('status');
    s = {
      nameRule: 'subdomain',
      tracksGeneration: true,
      allowCreateOnUpdate: false,
      returnDeletedObject: true,
      // With the status subresource a create's status is dropped, and an update of the object keeps the stored one.
      initialStatus: status ? () => undefined : undefined,
      defaults: (obj) => pruneAndDefault(info, obj),
      validate: (obj, old) => {
        // A status write does not default (lifecycle.ts), but its object is still pruned and defaulted here (a no-op after a main write's).
        if (old) pruneAndDefault(info, obj);
        return validateCustomResource(info, obj, old);
      },
    };
    strategies.set(rt, s);
  }
  return s;
}
