// POST serviceaccounts/<name>/token: kube's TokenREST, what `kubectl create
// token` and kubelet's projected token volumes ask. Nothing is stored: the
// answer is the TokenRequest with a signed token in its status. As kube, a
// dry run is checked like any other request and still answers a token (there
// is nothing to leave unstored).
import { badRequest, conflict, fieldError, invalid, notFound, type FieldError } from '../../../shared/api/errors.ts';
import { timestamp } from '../../registry/lifecycle.ts';
import type { StoredObject } from '../../storage/types.ts';
import type { Authentication, TokenToIssue } from '../../auth/authn/index.ts';
import { storeObjects } from '../../auth/authn/objects.ts';
import { decodeObject } from '../decode-object.ts';
import { isDryRun } from '../dry-run.ts';
import type { ApiContext, ApiRequest, ApiResponse } from '../context.ts';

const KIND = { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };
const API_VERSION = `${KIND.group}/${KIND.version}`;
/** kube's MinTokenAgeSec and the 2^32 ceiling of ValidateTokenRequest. */
const MIN_SECONDS = 600;
const MAX_SECONDS = 2 ** 32;

/** The parts of a TokenRequest body read here (decoded JSON: any field may have any shape until checked). */
interface TokenRequestBody {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown; namespace?: unknown; uid?: unknown } | null;
  spec?: {
    audiences?: unknown;
    expirationSeconds?: unknown;
    boundObjectRef?: { kind?: unknown; apiVersion?: unknown; name?: unknown; uid?: unknown } | null;
  } | null;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** The body as a TokenRequest (400 for another kind, as checkTypeMeta words it). */
function asTokenRequest(obj: unknown): TokenRequestBody {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj))
    throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(obj)}'`);
  const body = obj as TokenRequestBody;
  if (body.apiVersion !== undefined && body.apiVersion !== API_VERSION) {
    throw badRequest(
      `the API version in the data (${JSON.stringify(body.apiVersion)}) does not match the expected API version (${API_VERSION})`,
    );
  }
  if (body.kind !== undefined && body.kind !== KIND.kind) {
    throw badRequest(`the kind in the data (${JSON.stringify(body.kind)}) does not match the expected kind (${KIND.kind})`);
  }
  return body;
}

/** Go's GroupVersionKind.String() for an apiVersion and kind. */
function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  return `${group}/${version}, Kind=${kind}`;
}

/** Serves a TokenRequest. */
export async function handleTokenRequest(ctx: ApiContext, r: ApiRequest, authn: Authentication): Promise<ApiResponse> {
  const { namespace, name } = r.info;
  isDryRun(r.query); // a bad dryRun value is a 400 here too
  const { obj, warnings } = await decodeObject(r, r.info.resource, KIND);
  const req = asTokenRequest(obj);
  const meta = req.metadata ?? {};
  const metaName = str(meta.name);
  const metaNamespace = str(meta.namespace);
  if (metaName && metaName !== name) {
    throw invalid(KIND.kind, KIND.group, name, [
      fieldError.invalid('metadata.name', metaName, 'must match the service account name if specified'),
    ]);
  }
  if (metaNamespace && metaNamespace !== namespace) {
    throw invalid(KIND.kind, KIND.group, name, [
      fieldError.invalid('metadata.namespace', metaNamespace, 'must match the service account namespace if specified'),
    ]);
  }
  const objects = storeObjects(ctx.store);
  const sa = objects.serviceAccount(namespace, name);
  if (!sa) throw notFound({ group: '', resource: 'serviceaccounts' }, name);
  const saUid = sa.metadata.uid ?? '';
  const metaUid = str(meta.uid);
  if (metaUid && metaUid !== saUid) {
    warnings.push(
      `the UID in the token request (${metaUid}) does not match the UID of the service account (${saUid}) but TokenRequestServiceAccountUIDValidation is not enabled. In the future, this will return a conflict error`,
    );
  }
  const spec = req.spec ?? {};
  const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.map(String) : [...authn.apiAudiences];
  let expirationSeconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : 3600;
  const now = ctx.now();
  const errs: FieldError[] = [];
  if (expirationSeconds < MIN_SECONDS) {
    errs.push(fieldError.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes'));
  }
  if (expirationSeconds > MAX_SECONDS) {
    errs.push(fieldError.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
  }
  if (errs.length > 0) throw invalid(KIND.kind, KIND.group, '', errs);

  const issue: TokenToIssue = { namespace, serviceAccountName: name, serviceAccountUid: saUid, audiences, expirationSeconds };
  const ref = spec.boundObjectRef;
  if (ref) {
    const refApiVersion = str(ref.apiVersion);
    const refKind = str(ref.kind);
    const refName = str(ref.name);
    const group = refApiVersion.includes('/') ? refApiVersion.slice(0, refApiVersion.indexOf('/')) : '';
    let bound: StoredObject | undefined;
    if (group === '' && refKind === 'Pod') {
      const pod = objects.pod(namespace, refName);
      if (!pod) throw notFound({ group: '', resource: 'pods' }, refName);
      if (name !== (pod.spec?.serviceAccountName ?? '')) {
        throw badRequest(`cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`);
      }
      bound = pod;
      issue.boundPod = { name: refName, uid: pod.metadata.uid ?? '', nodeName: pod.spec?.nodeName || undefined };
    } else if (group === '' && refKind === 'Node') {
      const node = objects.node(refName);
      if (!node) throw notFound({ group: '', resource: 'nodes' }, refName);
      bound = node;
      issue.boundNode = { name: refName, uid: node.metadata.uid ?? '' };
    } else if (group === '' && refKind === 'Secret') {
      const secret = objects.secret(namespace, refName);
      if (!secret) throw notFound({ group: '', resource: 'secrets' }, refName);
      bound = secret;
      issue.boundSecret = { name: refName, uid: secret.metadata.uid ?? '' };
    } else {
      throw badRequest(`cannot bind token to object of type ${gvkString(refApiVersion, refKind)}`);
    }
    const refUid = str(ref.uid);
    if (refUid && refUid !== bound.metadata.uid) {
      throw conflict(
        { group, resource: refKind },
        refName,
        `the UID in the bound object reference (${refUid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
  }
  const max = authn.maxTokenExpirationSeconds;
  if (max && max > 0 && expirationSeconds > max) {
    warnings.push(`requested expiration of ${expirationSeconds} seconds shortened to ${max} seconds`);
    expirationSeconds = max;
    issue.expirationSeconds = max;
  }
  const { token, expirationTimestamp } = await authn.issueServiceAccountToken(issue);
  const out = {
    kind: KIND.kind,
    apiVersion: API_VERSION,
    metadata: { name, namespace, uid: saUid || undefined, creationTimestamp: timestamp(now) },
    spec: {
      audiences,
      expirationSeconds,
      boundObjectRef: ref
        ? { kind: str(ref.kind), apiVersion: str(ref.apiVersion) || undefined, name: str(ref.name), uid: str(ref.uid) || undefined }
        : null,
    },
    status: { token, expirationTimestamp },
  };
  return { status: 201, json: JSON.stringify(out), warnings };
}
