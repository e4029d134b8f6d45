// The tokens controller (kube's "serviceaccount-token" controller): fills
// the Secrets of type kubernetes.io/service-account-token that users create
// with a legacy token signed by the ServiceAccount key
// (--service-account-private-key-file), the root CA (--root-ca-file) and the
// namespace, and deletes them once their ServiceAccount is gone. As in kube it
// runs with the controller-manager's own credentials, and does not start
// without a key. Keys: `secret/NS/NAME` and `account/NS/NAME/UID`; the
// decisions are in plan.ts.
import type { Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { readFile } from 'node:fs/promises';
import { StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import {
  isTokenOf,
  referencedAccount,
  SERVICE_ACCOUNT_NAME_ANNOTATION,
  SERVICE_ACCOUNT_TOKEN_TYPE,
  SERVICE_ACCOUNT_UID_ANNOTATION,
  tokenSecretAction,
} from './plan.ts';

const secrets = findResource('', 'v1', 'secrets')!;
const serviceaccounts = findResource('', 'v1', 'serviceaccounts')!;

/** The tokens controller's files (kube-controller-manager's flags of the same names). */
export interface TokenSigningConfig {
  /** --service-account-private-key-file: the key the apiserver verifies ServiceAccount tokens with. */
  privateKeyFile: string;
  /** --root-ca-file: written into each token Secret's ca.crt. */
  rootCaFile?: string;
}

/** Answers that mean "someone else changed or removed it first": the informers bring what happened. */
const raced = (err: unknown) => err instanceof StatusError && (err.code === 404 || err.code === 409);

/** Builds the tokens controller; without a private key it does nothing, as kube does not start it. */
export function serviceAccountTokenController(ctx: ControllerContext & { tokenSigning?: TokenSigningConfig }): ControllerParts {
  const name = 'serviceaccount-token';
  const log = ctx.log.child({ controller: name });
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const config = ctx.tokenSigning;
  if (!config?.privateKeyFile) {
    log.info('not starting the tokens controller: no --service-account-private-key-file');
    return { name, queue, informers: [], reconcile: async () => {} };
  }
  const saInformer = ctx.informers.informerFor<ServiceAccount>(serviceaccounts);
  const secretInformer = ctx.informers.informerFor<Secret>(secrets, { fieldSelector: `type=${SERVICE_ACCOUNT_TOKEN_TYPE}` });
  const accountKey = (sa: ServiceAccount) => `account/${sa.metadata!.namespace}/${sa.metadata!.name}/${sa.metadata!.uid}`;
  const secretKey = (s: Secret) => `secret/${s.metadata!.namespace}/${s.metadata!.name}`;
  saInformer.on({ delete: (sa) => queue.add(accountKey(sa)) });
  secretInformer.on({ add: (s) => queue.add(secretKey(s)), update: (_old, s) => queue.add(secretKey(s)) });

  // The signing code (jose) is loaded with the first Secret to fill, not with every controller-manager.
  let signer:
    | Promise<{
        sign: (req: Parameters<typeof import('../../../apiserver/auth/authn/legacy-token.ts').issueLegacyToken>[1]) => Promise<string>;
      }>
    | undefined;
  const loadSigner = () => {
    signer ??= (async () => {
      const [{ loadSigningKeyFile }, { issueLegacyToken }] = await Promise.all([
        import('../../../apiserver/auth/authn/sa-keys.ts'),
        import('../../../apiserver/auth/authn/legacy-token.ts'),
      ]);
      const key = await loadSigningKeyFile(config.privateKeyFile);
      return { sign: (req) => issueLegacyToken(key, req) };
    })();
    signer.catch(() => (signer = undefined));
    return signer;
  };
  let rootCa: Promise<string | undefined> | undefined;
  const loadRootCa = () => (rootCa ??= config.rootCaFile ? readFile(config.rootCaFile, 'utf8') : Promise.resolve(undefined));

  /** kube's getServiceAccount with fetchOnCacheMiss: the cache, else a live read. */
  async function accountOf(namespace: string, ref: { name: string; uid: string }): Promise<ServiceAccount | undefined> {
    let sa = saInformer.cache.get(`${namespace}/${ref.name}`);
    if (!sa || (ref.uid && sa.metadata?.uid !== ref.uid)) {
      try {
        sa = await ctx.client.get<ServiceAccount>(serviceaccounts, namespace, ref.name);
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return undefined;
        throw err;
      }
    }
    return !ref.uid || sa.metadata?.uid === ref.uid ? sa : undefined;
  }

  async function deleteSecret(namespace: string, secretName: string, uid: string | undefined) {
    try {
      await ctx.client.delete(secrets, namespace, secretName, uid ? { preconditions: { uid } } : undefined);
      log.info({ secret: `${namespace}/${secretName}` }, 'deleted a token Secret whose ServiceAccount is gone');
    } catch (err) {
      if (!raced(err)) throw err;
    }
  }

  async function syncSecret(namespace: string, secretName: string) {
    const cached = secretInformer.cache.get(`${namespace}/${secretName}`);
    const ref = cached && referencedAccount(cached);
    if (!cached || !ref) return;
    const action = tokenSecretAction(cached, await accountOf(namespace, ref), await loadRootCa());
    if (action.op === 'none') return;
    if (action.op === 'delete') return deleteSecret(namespace, secretName, cached.metadata?.uid);
    const next = action.secret;
    if (action.needsToken) {
      const token = await (
        await loadSigner()
      ).sign({
        namespace,
        secretName,
        serviceAccountName: next.metadata!.annotations![SERVICE_ACCOUNT_NAME_ANNOTATION],
        serviceAccountUid: next.metadata!.annotations![SERVICE_ACCOUNT_UID_ANNOTATION],
      });
      next.data!.token = Buffer.from(token).toString('base64');
    }
    try {
      // The cached resourceVersion is the precondition: a Secret changed meanwhile comes back through the informer.
      await ctx.client.update(secrets, next);
    } catch (err) {
      if (!raced(err)) throw err;
    }
  }

  /** kube's syncServiceAccount once an account is deleted: its token Secrets go too. */
  async function syncDeletedAccount(namespace: string, accountName: string, uid: string) {
    const live = saInformer.cache.get(`${namespace}/${accountName}`);
    if (live && live.metadata?.uid === uid) return;
    for (const s of secretInformer.cache.list()) {
      if (s.metadata?.namespace === namespace && isTokenOf(s, { name: accountName, uid })) {
        await deleteSecret(namespace, s.metadata.name!, s.metadata.uid);
      }
    }
  }

  async function reconcile(key: string) {
    const [kind, namespace, objName, uid] = key.split('/');
    if (kind === 'secret') await syncSecret(namespace, objName);
    else await syncDeletedAccount(namespace, objName, uid);
  }

  return { name, queue, informers: [saInformer, secretInformer], reconcile };
}
