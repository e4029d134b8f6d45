// DefaultIngressClass, after kube's admission plugin: a new Ingress that
// names no class (neither spec.ingressClassName nor the old
// kubernetes.io/ingress.class annotation) gets the default IngressClass, the
// one annotated ingressclass.kubernetes.io/is-default-class=true (with
// several, the newest). Updates and subresources are left alone.
import type { Ingress, IngressClass } from 'kubernetes-types/networking/v1.js';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { Store } from '../storage/store.ts';
import { newestDefault } from './newest-default.ts';
import type { AdmissionPlugin } from './types.ts';

export const INGRESS_CLASSES_BUCKET = '/registry/networking.k8s.io/ingressclasses';
const DEFAULT_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';
const CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

/** True for an IngressClass marked default. */
export const isDefaultIngressClass = (c: IngressClass): boolean => c.metadata?.annotations?.[DEFAULT_ANNOTATION] === 'true';

/** The store's default IngressClass, re-read only after the bucket changed. */
function storeDefaultClass(store: Store): () => IngressClass | undefined {
  let version = -1;
  let current: IngressClass | undefined;
  return () => {
    const v = store.bucketVersion(INGRESS_CLASSES_BUCKET);
    if (v !== version) {
      version = v;
      const items = store.list({ bucket: INGRESS_CLASSES_BUCKET, keyPrefix: `${INGRESS_CLASSES_BUCKET}/` }).items;
      current = newestDefault(
        items.map((j) => JSON.parse(j) as IngressClass),
        isDefaultIngressClass,
      );
    }
    return current;
  };
}

const isIngresses = (rt: ResourceType) => rt.group === 'networking.k8s.io' && rt.plural === 'ingresses';

/** DefaultIngressClass; `defaultClass` gives the current default (the store's, by default). */
export function defaultIngressClass(store: Store, defaultClass = storeDefaultClass(store)): AdmissionPlugin {
  return {
    name: 'DefaultIngressClass',
    contextual: true,
    appliesTo: isIngresses,
    admit(op, _rt, obj, _old, attrs) {
      if (op !== 'CREATE' || attrs?.subresource) return false;
      const ing = obj as Ingress;
      // A class given, even "", is the user's choice; so is the annotation kube still honours.
      if (ing.spec?.ingressClassName !== undefined && ing.spec.ingressClassName !== null) return false;
      if (ing.metadata?.annotations?.[CLASS_ANNOTATION] !== undefined) return false;
      const name = defaultClass()?.metadata?.name;
      if (!name) return false;
      ing.spec = { ...ing.spec, ingressClassName: name };
      return true;
    },
  };
}
