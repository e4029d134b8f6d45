// The CSR signing controller (kube's "csrsigning"): signs approved
// CertificateSigningRequests for kubernetes.io/kube-apiserver-client,
// kube-apiserver-client-kubelet and kubelet-serving with the cluster CA
// (--cluster-signing-cert-file / --cluster-signing-key-file), writing the
// certificate, or the Failed condition, through the status subresource.
// Keys are CSR names; the decision is in sign.ts.
import { readFile } from 'node:fs/promises';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { findResource } from '../../../shared/api/resources.ts';
import type { CertificateAuthority } from '../../../shared/pki/certificates.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import { DEFAULT_SIGNING_DURATION_MS } from './duration.ts';

const csrs = findResource('certificates.k8s.io', 'v1', 'certificatesigningrequests')!;

/** What the signer is configured with (the controller-manager's --cluster-signing-* flags). */
export interface CSRSigningConfig {
  certFile: string;
  keyFile: string;
  /** --cluster-signing-duration, in milliseconds (default 8760h). */
  durationMs?: number;
}

/** Builds the CSR signing controller; without a CA configured it signs nothing, as kube skips it. */
export function csrSigningController(ctx: ControllerContext & { csrSigning?: CSRSigningConfig }): ControllerParts {
  const name = 'csrsigning';
  const log = ctx.log.child({ controller: name });
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const config = ctx.csrSigning;
  if (!config?.certFile || !config.keyFile) {
    log.info('skipping CSR signer controller because no csr cert/key was specified');
    return { name, queue, informers: [], reconcile: async () => {} };
  }
  const maxDurationMs = config.durationMs ?? DEFAULT_SIGNING_DURATION_MS;
  const informer = ctx.informers.informerFor<CertificateSigningRequest>(csrs);
  informer.on({ add: (csr) => queue.add(csr.metadata!.name!), update: (_old, csr) => queue.add(csr.metadata!.name!) });

  // The signing code and its certificate library are loaded with the first CSR, not with every controller-manager.
  let ca: Promise<CertificateAuthority> | undefined;
  const loadCA = () => {
    ca ??= (async () => {
      const { loadCertificateAuthority } = await import('../../../shared/pki/certificates.ts');
      return loadCertificateAuthority(await readFile(config.certFile, 'utf8'), await readFile(config.keyFile, 'utf8'));
    })();
    // A CA that failed to load is read again on the next try.
    ca.catch(() => (ca = undefined));
    return ca;
  };

  async function reconcile(key: string) {
    const csr = informer.cache.get(key);
    if (!csr) return;
    const { applyDecision, decide } = await import('./sign.ts');
    const decision = await decide(csr, { ca: await loadCA(), maxDurationMs, nowMs: ctx.clock.now() });
    const updated = applyDecision(csr, decision, ctx.clock.now());
    if (!updated) return;
    await ctx.client.update(csrs, updated, 'status');
    if (decision.action === 'fail') log.info({ csr: key, message: decision.message }, 'refused certificate signing request');
    else log.info({ csr: key }, 'issued certificate');
  }

  log.debug('configured');
  return { name, queue, informers: [informer], reconcile };
}
