// The authentication reviews (create-only, computed, never stored):
// SelfSubjectReview answers who the caller is (`kubectl auth whoami`);
// TokenReview authenticates a token on someone's behalf (webhook token
// authenticators, Vault, metrics servers), as kube's REST storages do.
import { badRequest } from '../../shared/api/errors.ts';
import { AuthenticationError } from '../auth/authenticator-types.ts';
import type { UserInfo } from '../auth/user-info.ts';
import type { Authentication } from '../auth/authn/index.ts';
import { timestamp } from '../registry/lifecycle.ts';
import { decodeObject } from './decode-object.ts';
import type { ApiContext, ApiRequest, ApiResponse } from './context.ts';

const API_VERSION = 'authentication.k8s.io/v1';

/** authentication.k8s.io/v1 UserInfo as Go's JSON writes it (uid, groups and extra omitted when empty). */
function userInfoJson(user: UserInfo): object {
  const out: Record<string, unknown> = { username: user.username };
  if (user.uid) out.uid = user.uid;
  if (user.groups.length > 0) out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) out.extra = structuredClone(user.extra);
  return out;
}

/** A body's field as an object, or undefined. */
function objectField(obj: unknown, field: string): Record<string, unknown> | undefined {
  if (typeof obj !== 'object' || obj === null) return undefined;
  const v = (obj as Record<string, unknown>)[field];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** POST selfsubjectreviews: the caller as authentication (and impersonation) found them. */
export async function handleSelfSubjectReview(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const rt = r.info.resource;
  await decodeObject(r, rt);
  const body = {
    kind: 'SelfSubjectReview',
    apiVersion: API_VERSION,
    metadata: { creationTimestamp: timestamp(ctx.now()) },
    status: { userInfo: userInfoJson(r.user) },
  };
  return { status: 201, json: JSON.stringify(body) };
}

/** POST tokenreviews: whether spec.token authenticates, for spec.audiences (default the API audiences). */
export async function handleTokenReview(_ctx: ApiContext, r: ApiRequest, authn: Authentication): Promise<ApiResponse> {
  const rt = r.info.resource;
  if (r.info.namespace) throw badRequest(`namespace is not allowed on this type: ${r.info.namespace}`);
  const { obj } = await decodeObject(r, rt);
  const spec = objectField(obj, 'spec') ?? {};
  const token = typeof spec.token === 'string' ? spec.token : '';
  if (!token) throw badRequest('token is required for TokenReview in authentication');
  const asked = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
  const status: Record<string, unknown> = {};
  try {
    const found = await authn.authenticateToken(token, asked.length > 0 ? asked : undefined);
    status.authenticated = true;
    status.user = userInfoJson(found.user);
    if (found.audiences?.length) status.audiences = found.audiences;
  } catch (err) {
    if (!(err instanceof AuthenticationError)) throw err;
    status.user = {};
    status.error = err.message;
  }
  const metadata = { ...(objectField(obj, 'metadata') ?? {}), creationTimestamp: null };
  const outSpec: Record<string, unknown> = { token };
  if (asked.length > 0) outSpec.audiences = asked;
  const body = { kind: 'TokenReview', apiVersion: API_VERSION, metadata, spec: outSpec, status };
  return { status: 201, json: JSON.stringify(body) };
}
