// The root CA publisher's decision, as kube's root-ca-cert-publisher makes
// it: every active Namespace holds a ConfigMap "kube-root-ca.crt" whose
// ca.crt is the cluster's CA bundle, so a Pod (its projected
// kube-api-access volume) can verify the apiserver at kubernetes.default.svc.
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
export const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
// The annotation kube puts on the ConfigMap (its users read it to learn what the bundle is for).
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

/** What to do in one namespace: nothing, create the ConfigMap, or update the one there. */
export type RootCaAction = { op: 'none' } | { op: 'create'; configMap: ConfigMap } | { op: 'update'; configMap: ConfigMap };

/** The action for `ns`, whose ConfigMap is `current` (undefined when missing), for the bundle `caPem`. */
export function rootCaAction(ns: Namespace | undefined, current: ConfigMap | undefined, caPem: string): RootCaAction {
  if (!ns || ns.status?.phase === 'Terminating' || ns.metadata?.deletionTimestamp) return { op: 'none' };
  const namespace = ns.metadata!.name!;
  if (!current) {
    return {
      op: 'create',
      configMap: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
        data: { 'ca.crt': caPem },
      },
    };
  }
  const annotations = current.metadata?.annotations ?? {};
  const data = current.data ?? {};
  // As kube: the data must be exactly the bundle (other keys removed) and the description present.
  if (data['ca.crt'] === caPem && Object.keys(data).length === 1 && annotations[DESCRIPTION_ANNOTATION] === DESCRIPTION)
    return { op: 'none' };
  return {
    op: 'update',
    configMap: {
      ...current,
      metadata: { ...current.metadata, annotations: { ...annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
      data: { 'ca.crt': caPem },
    },
  };
}
