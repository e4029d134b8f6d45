// The audit policy: reading and validating an audit.k8s.io/v1 Policy file
// (kube's policy.LoadPolicyFromFile and validation.ValidatePolicy, with
// their messages) and deciding a request's level as kube's policy checker
// does: the first rule that matches wins, no match is level None.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { isObject } from '../../shared/patch/go-format.ts';
import { fe, index, type FieldError } from '../registry/kinds/field.ts';
import { nameProblems } from '../registry/names.ts';
import type { UserInfo } from '../auth/user-info.ts';
import { LEVELS, STAGES, type AuditObjectRef, type Level, type Policy, type PolicyRule, type Stage } from './types.ts';

/** What the policy looks at in a request (kube's authorizer.Attributes, as audit uses them). */
export interface PolicyAttributes {
  /** The authenticated user; undefined before (or without) authentication. */
  user?: UserInfo;
  verb: string;
  /** The request path without its query, for nonResourceURLs. */
  path: string;
  /** Set for resource requests, absent for non-resource ones. */
  objectRef?: AuditObjectRef;
}

/** What the policy decides for one request (kube's RequestAuditConfig). */
export interface AuditConfig {
  level: Level;
  omitStages: ReadonlySet<Stage>;
  omitManagedFields: boolean;
}

/**
 * ksim's policy when no --audit-policy-file is given (kube-apiserver then
 * audits nothing): every request at Metadata, which is what a learner wants
 * to see (who did what to which object, and why it was allowed), without the
 * RequestReceived stage, so each request is one line.
 */
export const DEFAULT_POLICY: Policy = {
  apiVersion: 'audit.k8s.io/v1',
  kind: 'Policy',
  omitStages: ['RequestReceived'],
  rules: [{ level: 'Metadata' }],
};

const API_VERSION = 'audit.k8s.io/v1';

/** Go's errors.Aggregate message: one error as it is, several in brackets. */
function aggregate(errs: FieldError[]): string {
  return errs.length === 1 ? errs[0].message : `[${errs.map((e) => e.message).join(', ')}]`;
}

function validateRule(rule: PolicyRule, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const level = rule.level as string | undefined;
  if (!level) errs.push(fe.required(`${path}.level`));
  else if (!LEVELS.includes(level as Level)) errs.push(fe.notSupported(`${path}.level`, level, LEVELS));
  (rule.nonResourceURLs ?? []).forEach((url, i) => {
    const p = index(`${path}.nonResourceURLs`, i);
    if (url === '*') return;
    if (!url.startsWith('/')) errs.push(fe.invalid(p, url, "non-resource URL rules must begin with a '/' character"));
    if (url !== '' && url.slice(0, -1).includes('*')) {
      errs.push(fe.invalid(p, url, "non-resource URL wildcards '*' must be the final character of the rule"));
    }
  });
  for (const gr of rule.resources ?? []) {
    if (gr.group) {
      const problems = nameProblems(gr.group, 'subdomain');
      if (problems.length > 0) errs.push(fe.invalid(`${path}.resources.group`, gr.group, problems.join(',')));
    }
    if ((gr.resourceNames ?? []).length > 0 && (gr.resources ?? []).length === 0) {
      errs.push(
        fe.invalidShown(
          `${path}.resources.resourceNames`,
          `[]string{${gr.resourceNames!.map((n) => JSON.stringify(n)).join(', ')}}`,
          'using resourceNames requires at least one resource',
        ),
      );
    }
  }
  (rule.omitStages ?? []).forEach((s, i) => {
    if (!STAGES.includes(s)) errs.push(fe.invalid(index(`${path}.omitStages`, i), s, `allowed stages are ${STAGES.join(',')}`));
  });
  if ((rule.nonResourceURLs ?? []).length > 0 && ((rule.resources ?? []).length > 0 || (rule.namespaces ?? []).length > 0)) {
    errs.push(
      fe.invalidShown(
        `${path}.nonResourceURLs`,
        `[]string{${rule.nonResourceURLs!.map((n) => JSON.stringify(n)).join(', ')}}`,
        'rules cannot apply to both regular resources and non-resource URLs',
      ),
    );
  }
  return errs;
}

const stringLists = ['users', 'userGroups', 'verbs', 'namespaces', 'nonResourceURLs', 'omitStages'] as const;

/** Decoding as kube's strict-enough decoder: the wrong type for a field is an error, unknown fields are ignored. */
function decodeRule(raw: unknown, path: string): PolicyRule {
  if (!isObject(raw)) throw new Error(`failed decoding: ${path}: expected an object`);
  for (const f of stringLists) {
    const v = raw[f];
    if (v !== undefined && v !== null && (!Array.isArray(v) || v.some((s) => typeof s !== 'string'))) {
      throw new Error(`failed decoding: ${path}.${f}: expected a list of strings`);
    }
  }
  if (raw.resources !== undefined && raw.resources !== null && (!Array.isArray(raw.resources) || !raw.resources.every(isObject))) {
    throw new Error(`failed decoding: ${path}.resources: expected a list of objects`);
  }
  if (raw.omitManagedFields !== undefined && raw.omitManagedFields !== null && typeof raw.omitManagedFields !== 'boolean') {
    throw new Error(`failed decoding: ${path}.omitManagedFields: expected a boolean`);
  }
  return raw as unknown as PolicyRule;
}

/** Parses and validates a Policy document (YAML or JSON); throws kube's messages. */
export function parsePolicy(text: string): Policy {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new Error(`failed decoding: ${(err as Error).message}`, { cause: err });
  }
  if (!isObject(doc)) throw new Error("failed decoding: Object 'Kind' is missing in policy");
  if (!doc.kind) throw new Error(`failed decoding: Object 'Kind' is missing in '${JSON.stringify(doc)}'`);
  if (doc.apiVersion !== API_VERSION || doc.kind !== 'Policy') {
    throw new Error(
      `failed decoding: no kind "${JSON.stringify(doc.kind).replace(/^"|"$/g, '')}" is registered for version "${typeof doc.apiVersion === 'string' ? doc.apiVersion : ''}"`,
    );
  }
  const rules = doc.rules ?? [];
  if (!Array.isArray(rules)) throw new Error('failed decoding: rules: expected a list');
  const policy: Policy = {
    apiVersion: API_VERSION,
    kind: 'Policy',
    rules: rules.map((r, i) => decodeRule(r, index('rules', i))),
    omitStages: (doc.omitStages as Stage[] | undefined) ?? undefined,
    omitManagedFields: doc.omitManagedFields === true,
  };
  const errs = policy.rules.flatMap((r, i) => validateRule(r, index('rules', i)));
  (policy.omitStages ?? []).forEach((s, i) => {
    if (!STAGES.includes(s)) errs.push(fe.invalid(index('omitStages', i), s, `allowed stages are ${STAGES.join(',')}`));
  });
  if (errs.length > 0) throw new Error(aggregate(errs));
  if (policy.rules.length === 0) throw new Error('loaded illegal policy with 0 rules');
  return policy;
}

/** Reads --audit-policy-file; the error names the file as kube's does. */
export function loadPolicyFile(path: string): Policy {
  if (!path) throw new Error('file path not specified');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`failed to read file path ${JSON.stringify(path)}: ${(err as Error).message}`, { cause: err });
  }
  try {
    return parsePolicy(text);
  } catch (err) {
    throw new Error(`${(err as Error).message}: from file ${path}`, { cause: err });
  }
}

const has = (list: string[] | undefined, v: string) => (list ?? []).includes(v);

/** kube's pathMatches: `*`, an exact path, or a prefix ending in `*`. */
function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function matchesResource(rule: PolicyRule, attrs: PolicyAttributes): boolean {
  const ref = attrs.objectRef;
  if (!ref) return false;
  // Cluster-scoped resources match the empty namespace.
  if ((rule.namespaces ?? []).length > 0 && !has(rule.namespaces, ref.namespace ?? '')) return false;
  if ((rule.resources ?? []).length === 0) return true;
  const resource = ref.resource ?? '';
  const sub = ref.subresource ?? '';
  const combined = sub ? `${resource}/${sub}` : resource;
  for (const gr of rule.resources ?? []) {
    if ((gr.group ?? '') !== (ref.apiGroup ?? '')) continue;
    if ((gr.resources ?? []).length === 0) return true;
    if ((gr.resourceNames ?? []).length > 0 && !has(gr.resourceNames, ref.name ?? '')) continue;
    for (const res of gr.resources ?? []) {
      if (res === combined || res === '*') return true;
      if (sub && res.startsWith('*/') && res.slice(2) === sub) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === resource) return true;
    }
  }
  return false;
}

/** kube's ruleMatches. */
export function ruleMatches(rule: PolicyRule, attrs: PolicyAttributes): boolean {
  if ((rule.users ?? []).length > 0 && (!attrs.user || !has(rule.users, attrs.user.username))) return false;
  if ((rule.userGroups ?? []).length > 0 && !(attrs.user?.groups ?? []).some((g) => has(rule.userGroups, g))) return false;
  if ((rule.verbs ?? []).length > 0 && !has(rule.verbs, attrs.verb)) return false;
  if ((rule.namespaces ?? []).length > 0 || (rule.resources ?? []).length > 0) return matchesResource(rule, attrs);
  if ((rule.nonResourceURLs ?? []).length > 0) {
    return !attrs.objectRef && rule.nonResourceURLs!.some((spec) => pathMatches(attrs.path, spec));
  }
  return true;
}

/** A policy, ready to evaluate: kube's policy rule evaluator. */
export function policyEvaluator(policy: Policy): (attrs: PolicyAttributes) => AuditConfig {
  const top = new Set(policy.omitStages ?? []);
  const rules = policy.rules.map((rule) => ({
    rule,
    config: {
      level: rule.level,
      omitStages: new Set([...top, ...(rule.omitStages ?? [])]),
      omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields ?? false,
    } satisfies AuditConfig,
  }));
  const none: AuditConfig = { level: 'None', omitStages: top, omitManagedFields: policy.omitManagedFields ?? false };
  return (attrs) => rules.find((r) => ruleMatches(r.rule, attrs))?.config ?? none;
}
