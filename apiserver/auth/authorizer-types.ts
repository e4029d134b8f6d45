// What an authorizer is asked and what it answers: kube's
// authorizer.Attributes and Decision. Every authorizer (RBAC, Node) takes
// the same attributes; the chain asks them in order until one has an opinion.
import type { UserInfo } from './user-info.ts';

/** The attributes of one request (kube's authorizer.AttributesRecord). */
export interface AuthzAttributes {
  user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection, impersonate, bind, escalate, approve, sign, use, ...; for non-resource requests the lower-case HTTP method. */
  verb: string;
  /** True for /api and /apis resource paths, false for everything else (non-resource URLs). */
  resourceRequest: boolean;
  /** The request path (for non-resource requests). */
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** The raw `fieldSelector` of a list or watch (the Node authorizer lets a node list pods only by its own spec.nodeName). */
  fieldSelector?: string;
}

export type Decision = 'allow' | 'deny' | 'noOpinion';

/** An authorizer's answer: kube's (Decision, reason). */
export interface AuthzResult {
  decision: Decision;
  /** Why, as kube writes it (e.g. `RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"`). */
  reason: string;
}

/** One resource rule of a subject (authorization.k8s.io/v1 ResourceRule). */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** One non-resource rule of a subject (authorization.k8s.io/v1 NonResourceRule). */
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

/** What a subject may do in a namespace (SelfSubjectRulesReview's status). */
export interface RulesResult {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  incomplete: boolean;
  evaluationError?: string;
}

/** One authorizer. Synchronous: it reads caches kept up to date from the store. */
export interface Authorizer {
  name: string;
  authorize(attrs: AuthzAttributes): AuthzResult;
  /** The rules `user` has in `namespace` (only RBAC answers; others return undefined). */
  rulesFor?(user: UserInfo, namespace: string): RulesResult | undefined;
}
