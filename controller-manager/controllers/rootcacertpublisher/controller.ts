// The root CA publisher (kube's root-ca-cert-publisher): keeps the
// kube-root-ca.crt ConfigMap of every namespace holding the cluster CA,
// recreating it when deleted and restoring it when edited. The bundle is
// the CA of the controller-manager's own kubeconfig, as kube falls back to
// when --root-ca-file is not set. Keys are Namespace names; the decision is in plan.ts.
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import { isNamespaceTerminating } from '../serviceaccount/plan.ts';
import { ROOT_CA_CONFIGMAP, rootCaAction } from './plan.ts';

const namespaces = findResource('', 'v1', 'namespaces')!;
const configmaps = findResource('', 'v1', 'configmaps')!;

/** Builds the root CA publisher; with no CA in the kubeconfig (plain HTTP) it publishes nothing. */
export function rootCaCertPublisherController(ctx: ControllerContext): ControllerParts {
  const name = 'root-ca-cert-publisher';
  const log = ctx.log.child({ controller: name });
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const nsInformer = ctx.informers.informerFor<Namespace>(namespaces);
  // Only the ConfigMaps this controller owns: a cluster's other ConfigMaps are none of its business.
  const cmInformer = ctx.informers.informerFor<ConfigMap>(configmaps, { fieldSelector: `metadata.name=${ROOT_CA_CONFIGMAP}` });
  const caPem = ctx.client.config.ca?.toString('utf8');
  if (!caPem) log.warn('the kubeconfig has no CA: no kube-root-ca.crt ConfigMaps are published');

  nsInformer.on({ add: (ns) => queue.add(ns.metadata!.name!), update: (_old, ns) => queue.add(ns.metadata!.name!) });
  cmInformer.on({
    update: (_old, cm) => queue.add(cm.metadata!.namespace!),
    delete: (cm) => queue.add(cm.metadata!.namespace!),
  });

  async function reconcile(key: string) {
    if (!caPem) return;
    const action = rootCaAction(nsInformer.cache.get(key), cmInformer.cache.get(`${key}/${ROOT_CA_CONFIGMAP}`), caPem);
    try {
      if (action.op === 'create') await ctx.client.create(configmaps, key, action.configMap, undefined);
      else if (action.op === 'update') await ctx.client.update(configmaps, action.configMap);
    } catch (err) {
      // Gone, terminating, or created meanwhile: the informer brings the next state.
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      if (isNamespaceTerminating(err)) return;
      throw err;
    }
  }

  return { name, queue, informers: [nsInformer, cmInformer], reconcile };
}
