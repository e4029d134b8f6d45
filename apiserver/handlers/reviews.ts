// The review resources (create-only, computed, never stored): what `kubectl
// auth can-i` and `kubectl auth whoami` ask. ksim has no authentication or
// authorization yet, so every caller is system:anonymous and every request is
// allowed (kube's AlwaysAllow mode), and the answers say exactly that.
import { decodeObject } from './decode-object.ts';
import type { ApiContext, ApiRequest, ApiResponse } from './context.ts';

const ANONYMOUS = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

/** True for the resources this file serves. */
export function isReview(group: string, plural: string): boolean {
  return (
    (group === 'authorization.k8s.io' && (plural === 'selfsubjectaccessreviews' || plural === 'selfsubjectrulesreviews')) ||
    (group === 'authentication.k8s.io' && plural === 'selfsubjectreviews')
  );
}

/** Answers a review. */
export async function handleReview(_ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const rt = r.info.resource;
  const { obj } = await decodeObject(r, rt);
  const spec = (obj as { spec?: unknown } | null | undefined)?.spec ?? {};
  const base = { kind: rt.kind, apiVersion: `${rt.group}/${rt.version}`, metadata: { creationTimestamp: null }, spec };
  let status: object;
  if (rt.plural === 'selfsubjectaccessreviews') status = { allowed: true };
  else if (rt.plural === 'selfsubjectrulesreviews') {
    status = {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    };
  } else status = { userInfo: ANONYMOUS };
  const body =
    rt.plural === 'selfsubjectreviews'
      ? { kind: rt.kind, apiVersion: base.apiVersion, metadata: base.metadata, status }
      : { ...base, status };
  return { status: 201, json: JSON.stringify(body) };
}
