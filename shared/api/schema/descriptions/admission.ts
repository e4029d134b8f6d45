// admissionregistration.k8s.io/v1: ValidatingAdmissionPolicy (CEL rules
// checked in the apiserver) and its bindings, and the admission webhook
// configurations.
import type { GroupTable, TypeTable } from './types.ts';

const failurePolicy =
  'What happens when the check itself errors (a webhook times out, an expression fails to evaluate): Fail (reject the request, the default) or Ignore (let it through).';
const matchPolicy =
  'Exact (only requests for exactly the listed groups, versions and resources) or Equivalent (the default: also the same object reached through another version or group).';
const namespaceSelector = 'Only requests for objects in namespaces whose labels match. Unset or {} means every namespace.';
const objectSelector = 'Only requests whose object (old or new) has matching labels. Unset or {} means every object.';
const matchConditions = 'CEL expressions that must all be true for the request to be checked at all; used to narrow the match further.';
const ruleFields = {
  operations: 'The operations matched: CREATE, UPDATE, DELETE, CONNECT, or "*" for all.',
  apiGroups: 'The API groups matched; "" is the core group, "*" all.',
  apiVersions: 'The API versions matched; "*" for all.',
  resources:
    'The resources matched, e.g. "pods", "pods/status" for a subresource, "*" for all resources, "*/*" for those and their subresources.',
  scope: 'Which objects: Cluster (cluster-scoped), Namespaced, or "*" (both, the default).',
};
const webhook = (verb: string): TypeTable => ({
  $: `A webhook that ${verb} requests before they are stored.`,
  name: 'The webhook\'s name, a fully qualified domain name unique in the configuration, e.g. "check.example.com".',
  clientConfig: 'How the apiserver reaches the webhook: a URL or a Service, and its CA.',
  rules: 'Which operations on which resources are sent to the webhook.',
  failurePolicy,
  matchPolicy,
  namespaceSelector,
  objectSelector,
  sideEffects:
    'Whether calling the webhook changes anything elsewhere: None or NoneOnDryRun. Webhooks with side effects are not called for dry-run requests.',
  timeoutSeconds: 'How long to wait for the webhook, 1 to 30 seconds. Defaults to 10; then failurePolicy applies.',
  admissionReviewVersions: 'The AdmissionReview versions the webhook understands, in order of preference, e.g. ["v1"].',
  matchConditions,
});

export const admission: GroupTable = {
  prefix: 'io.k8s.api.admissionregistration.v1',
  types: {
    ValidatingAdmissionPolicy: {
      spec: 'What the policy checks: which requests it matches and the CEL validations they must pass.',
      status: 'The result of type-checking the expressions, and conditions.',
    },
    ValidatingAdmissionPolicySpec: {
      $: 'CEL validations of requests. A policy does nothing until a ValidatingAdmissionPolicyBinding applies it.',
      paramKind:
        "The kind of object that holds the policy's parameters (e.g. a ConfigMap), given to expressions as params. Unset means no parameters.",
      matchConstraints: 'Which requests the policy can apply to (bindings can only narrow this). Required.',
      validations: 'The CEL checks; the request is refused when any is false.',
      failurePolicy,
      auditAnnotations: 'CEL expressions whose values are added to the audit log of matching requests.',
      matchConditions,
      variables: 'Named CEL expressions computed once and usable in validations as variables.<name>.',
    },
    ValidatingAdmissionPolicyStatus: {
      $: 'The observed state of a policy.',
      observedGeneration: 'The metadata.generation that was checked.',
      typeChecking: 'Warnings from type-checking the expressions against the matched kinds.',
      conditions: 'Observations about the policy.',
    },
    ValidatingAdmissionPolicyBinding: { spec: 'Which policy to apply, where, with which parameters and with what effect.' },
    ValidatingAdmissionPolicyBindingSpec: {
      $: 'Applies a policy to some requests.',
      policyName: 'The ValidatingAdmissionPolicy to apply.',
      paramRef: 'Which parameter object(s) to give the policy.',
      matchResources: "Narrows the policy's own match to these requests. Unset matches everything the policy does.",
      validationActions:
        'What a failed validation does: Deny (refuse the request), Warn (send a warning to the client) and/or Audit (note it in the audit log). Deny and Warn cannot be combined.',
    },
    ParamKind: {
      $: "The kind of a policy's parameter objects.",
      apiVersion: 'The API version, e.g. "v1" or "example.com/v1".',
      kind: 'The kind, e.g. "ConfigMap".',
    },
    ParamRef: {
      $: "Where a binding finds the policy's parameters.",
      name: 'One parameter object by name. Set this or selector.',
      namespace: "The namespace of the parameter objects. Unset means the namespace of the request's object (for namespaced requests).",
      selector: 'Several parameter objects, by label: the policy is checked once per object.',
      parameterNotFoundAction:
        'What to do when no parameter object is found: Deny (refuse the request) or Allow (skip the policy). Required.',
    },
    MatchResources: {
      $: 'Which requests a policy or binding applies to.',
      namespaceSelector,
      objectSelector,
      resourceRules: 'The operations on resources matched.',
      excludeResourceRules: 'Operations on resources left out even if resourceRules match them.',
      matchPolicy,
    },
    NamedRuleWithOperations: {
      $: 'Operations on resources, optionally by object name.',
      ...ruleFields,
      resourceNames: 'Only objects with these names; empty means all.',
    },
    RuleWithOperations: { $: 'Operations on resources.', ...ruleFields },
    Validation: {
      $: 'One CEL check of a policy.',
      expression:
        'A CEL expression that must be true, with object, oldObject, request, params, namespaceObject and authorizer available, e.g. "object.spec.replicas <= 5".',
      message: 'The message given when the check fails. Defaults to one naming the expression.',
      messageExpression: 'A CEL expression that builds the message. Wins over message when it evaluates.',
      reason: 'The HTTP reason of the refusal: Unauthorized, Forbidden (the default), Invalid or RequestEntityTooLarge.',
    },
    Variable: {
      $: 'A named CEL expression of a policy.',
      name: 'The name, used as variables.<name>.',
      expression: 'The CEL expression, computed at most once per request.',
    },
    AuditAnnotation: {
      $: 'An audit annotation a policy adds.',
      key: 'The annotation key; it is prefixed with the policy name.',
      valueExpression: 'A CEL expression giving the value; null adds nothing.',
    },
    MatchCondition: {
      $: 'A CEL condition a request must meet to be checked.',
      name: "The condition's name, unique in the list.",
      expression: 'A CEL expression over object, oldObject, request and authorizer that returns a boolean.',
    },
    TypeChecking: { $: 'The result of type-checking a policy.', expressionWarnings: 'Problems found, one per expression.' },
    ExpressionWarning: {
      $: 'A problem with one expression.',
      fieldRef: 'The field holding the expression, e.g. spec.validations[0].expression.',
      warning: 'What is wrong.',
    },
    ValidatingWebhookConfiguration: { webhooks: 'The webhooks; each one is called for the requests it matches, in parallel.' },
    MutatingWebhookConfiguration: { webhooks: 'The webhooks; they are called one after another and may change the object.' },
    ValidatingWebhook: webhook('accepts or rejects'),
    MutatingWebhook: {
      ...webhook('may change (with a JSON patch in its answer) or reject'),
      reinvocationPolicy:
        'Never (the default) or IfNeeded: call the webhook once more if a later mutating webhook changed the object after it.',
    },
    WebhookClientConfig: {
      $: 'How the apiserver reaches a webhook.',
      url: 'An https URL of the webhook. Set this or service.',
      service: 'A Service in the cluster that serves the webhook.',
      caBundle:
        "The PEM CA certificates that sign the webhook's serving certificate (base64 in JSON). Defaults to the apiserver's trust roots.",
    },
    ServiceReference: {
      $: 'A Service that serves a webhook.',
      namespace: "The Service's namespace.",
      name: "The Service's name.",
      path: 'The URL path to call.',
      port: 'The Service port to call. Defaults to 443.',
    },
  },
};
