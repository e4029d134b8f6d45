// The audit.k8s.io/v1 shapes ksim writes and reads: the Event (one JSON line
// of the audit log, its fields in kube's order) and the Policy (the
// --audit-policy-file), as kube's apiserver/pkg/apis/audit/v1 defines them.
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { UserInfo } from '../auth/user-info.ts';

/** How much of a request is recorded. */
export type Level = 'None' | 'Metadata' | 'Request' | 'RequestResponse';

/** When in a request's life an event is written. */
export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export const LEVELS: Level[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
export const STAGES: Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

/** True when `a` records at least as much as `b`. */
export function levelAtLeast(a: Level, b: Level): boolean {
  return LEVELS.indexOf(a) >= LEVELS.indexOf(b);
}

/** What a resource request is about (audit.ObjectReference). */
export interface AuditObjectRef {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** The bounded part of the answer: metav1.Status without its object fields. */
export interface AuditResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code: number;
}

/** One audit.k8s.io/v1 Event. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: UserInfo;
  impersonatedUser?: UserInfo;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: AuditObjectRef;
  responseStatus?: AuditResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** A policy rule's resources (audit.GroupResources). */
export interface GroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

/** One rule of a Policy; the first that matches a request decides its level. */
export interface PolicyRule {
  level: Level;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

/** An audit.k8s.io/v1 Policy. */
export interface Policy {
  apiVersion: 'audit.k8s.io/v1';
  kind: 'Policy';
  metadata?: ObjectMeta;
  rules: PolicyRule[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}
