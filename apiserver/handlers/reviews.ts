// The authorization review resources (create-only, computed, never stored),
// answered as kube's registries answer them (pkg/registry/authorization):
// SubjectAccessReview and LocalSubjectAccessReview ask about any user,
// SelfSubjectAccessReview about the caller (`kubectl auth can-i`),
// SelfSubjectRulesReview lists the caller's rules in a namespace
// (`kubectl auth can-i --list`). SelfSubjectReview (`kubectl auth whoami`)
// is answered here too until its route moves to authn-reviews.ts.
import { nonResourceAttributes } from '../auth/request-attributes.ts';
import type { NonResourceAttributes, SelfSubjectAccessReviewSpec, SubjectAccessReviewSpec } from 'kubernetes-types/authorization/v1.js';
import { badRequest, fieldError, invalid, type FieldError } from '../../shared/api/errors.ts';
import { goQuote } from '../../shared/patch/go-format.ts';
import type { AuthzAttributes, AuthzResult, RulesResult } from '../auth/authorizer-types.ts';
import type { UserInfo } from '../auth/user-info.ts';
import { checkNamespace } from '../registry/lifecycle.ts';
import type { KubeObject } from '../registry/object.ts';
import { asObjectOf, decodeObject } from './decode-object.ts';
import type { ApiContext, ApiRequest, ApiResponse } from './context.ts';

const AUTHZ_GROUP = 'authorization.k8s.io';
const AUTHZ_REVIEWS = new Set(['subjectaccessreviews', 'localsubjectaccessreviews', 'selfsubjectaccessreviews', 'selfsubjectrulesreviews']);

/** True for the resources this file serves. */
export function isReview(group: string, plural: string): boolean {
  return (group === AUTHZ_GROUP && AUTHZ_REVIEWS.has(plural)) || (group === 'authentication.k8s.io' && plural === 'selfsubjectreviews');
}

/** Go's %#v of the NonResourceAttributes kube puts in these messages. */
function goNonResourceAttributes(a: NonResourceAttributes): string {
  return `&authorization.NonResourceAttributes{Path:${goQuote(a.path ?? '')}, Verb:${goQuote(a.verb ?? '')}}`;
}

function shownInvalid(field: string, a: NonResourceAttributes, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, message: `${field}: Invalid value: ${goNonResourceAttributes(a)}: ${detail}` };
}

/** kube's ValidateSelfSubjectAccessReviewSpec (and the shared part of the others). */
function validateAttributes(spec: SelfSubjectAccessReviewSpec): FieldError[] {
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    return [
      shownInvalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes'),
    ];
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    return [
      fieldError.invalid('spec.resourceAttributes', 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'),
    ];
  }
  return [];
}

/** The authorizer attributes of a review spec (kube's AuthorizationAttributesFrom). */
function attributesOf(user: UserInfo, spec: SelfSubjectAccessReviewSpec): AuthzAttributes {
  const ra = spec.resourceAttributes;
  if (ra) {
    return {
      user,
      verb: ra.verb ?? '',
      resourceRequest: true,
      path: '',
      apiGroup: ra.group ?? '',
      apiVersion: ra.version || '*',
      resource: ra.resource ?? '',
      subresource: ra.subresource ?? '',
      namespace: ra.namespace ?? '',
      name: ra.name ?? '',
    };
  }
  const na = spec.nonResourceAttributes ?? {};
  return { user, ...nonResourceAttributes(na.verb ?? '', na.path ?? '') };
}

function accessStatus(r: AuthzResult): Record<string, unknown> {
  const status: Record<string, unknown> = { allowed: r.decision === 'allow' };
  if (r.decision === 'deny') status.denied = true;
  if (r.reason) status.reason = r.reason;
  return status;
}

function rulesStatus(r: RulesResult | undefined): Record<string, unknown> {
  const rr = r ?? { resourceRules: [], nonResourceRules: [], incomplete: true };
  const status: Record<string, unknown> = {
    resourceRules: rr.resourceRules,
    nonResourceRules: rr.nonResourceRules,
    incomplete: rr.incomplete,
  };
  if (rr.evaluationError) status.evaluationError = rr.evaluationError;
  return status;
}

function answer(obj: KubeObject, status: Record<string, unknown>, spec: unknown = obj.spec): ApiResponse {
  const meta: Record<string, unknown> = { ...obj.metadata };
  if (meta.creationTimestamp === undefined) meta.creationTimestamp = null;
  return { status: 201, json: JSON.stringify({ kind: obj.kind, apiVersion: obj.apiVersion, metadata: meta, spec: spec ?? {}, status }) };
}

/** Answers a review. */
export async function handleReview(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const rt = r.info.resource;
  const { obj: body } = await decodeObject(r, rt);
  const obj = asObjectOf(rt, body) as KubeObject;
  if (rt.group === 'authentication.k8s.io') {
    const u = r.user;
    const userInfo: Record<string, unknown> = { username: u.username };
    if (u.uid) userInfo.uid = u.uid;
    userInfo.groups = u.groups;
    if (u.extra && Object.keys(u.extra).length) userInfo.extra = u.extra;
    return {
      status: 201,
      json: JSON.stringify({
        kind: obj.kind,
        apiVersion: obj.apiVersion,
        metadata: { ...obj.metadata, creationTimestamp: null },
        status: { userInfo },
      }),
    };
  }
  const spec = (obj.spec ?? {}) as SubjectAccessReviewSpec;
  switch (rt.plural) {
    case 'selfsubjectaccessreviews': {
      const errs = validateAttributes(spec);
      if (errs.length) throw invalid(rt.kind, rt.group, '', errs);
      return answer(obj, accessStatus(ctx.authorizer.authorize(attributesOf(r.user, spec))));
    }
    case 'subjectaccessreviews':
    case 'localsubjectaccessreviews': {
      const local = rt.plural === 'localsubjectaccessreviews';
      if (local) checkNamespace(rt, obj, r.info.namespace);
      const errs = validateAttributes(spec);
      if (!spec.user && !spec.groups?.length)
        errs.push(fieldError.invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
      if (local) {
        if (spec.resourceAttributes && obj.metadata.namespace !== (spec.resourceAttributes.namespace ?? '')) {
          errs.push(
            fieldError.invalid(
              'spec.resourceAttributes.namespace',
              spec.resourceAttributes.namespace ?? '',
              'must match metadata.namespace',
            ),
          );
        }
        if (spec.nonResourceAttributes) {
          errs.push(shownInvalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request'));
        }
      }
      if (errs.length) throw invalid(rt.kind, rt.group, '', errs);
      if (local) {
        const ns = r.info.namespace;
        if (!ns) throw badRequest(`namespace is required on this type: ${ns}`);
        if (ns !== obj.metadata.namespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${ns}`);
      }
      const user: UserInfo = { username: spec.user ?? '', groups: spec.groups ?? [] };
      if (spec.uid) user.uid = spec.uid;
      if (spec.extra) user.extra = spec.extra;
      return answer(obj, accessStatus(ctx.authorizer.authorize(attributesOf(user, spec))));
    }
    default: {
      // selfsubjectrulesreviews: kube answers a fresh object, without the spec.
      const ns = (obj.spec as { namespace?: string } | undefined)?.namespace ?? '';
      if (!ns) throw badRequest('no namespace on request');
      return answer(obj, rulesStatus(ctx.authorizer.rulesFor?.(r.user, ns)), {});
    }
  }
}
