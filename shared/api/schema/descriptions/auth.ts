// Who may do what: authentication.k8s.io (TokenReview, TokenRequest,
// SelfSubjectReview), authorization.k8s.io (the access reviews behind
// `kubectl auth can-i`), certificates.k8s.io (CertificateSigningRequest) and
// node.k8s.io (RuntimeClass).
import type { GroupTable } from './types.ts';
import { conditionFields } from './common.ts';

const userInfo = {
  $: 'Who a request comes from, as the authenticator saw it.',
  username: 'The user name, e.g. "jane" or "system:serviceaccount:default:builder".',
  uid: 'A unique identifier of the user, when the authenticator has one.',
  groups: 'The groups the user is in, e.g. "system:authenticated".',
  extra: 'Further facts the authenticator added, such as the pod a service account token was issued for.',
};
const reviewStatus = {
  $: 'The answer of an access review.',
  allowed: 'Whether the action is allowed.',
  denied:
    'Whether the action is explicitly denied (allowed is then false). Both false means no authorizer had an opinion: denied by default.',
  reason: 'Why, in words, e.g. the RBAC binding that allows it.',
  evaluationError: 'An error met while checking, e.g. a role that could not be read; the answer may then be incomplete.',
};
const selfSpec = {
  $: 'The action to check for the caller.',
  resourceAttributes: 'A resource action: verb, group, resource, namespace, name.',
  nonResourceAttributes: 'A non-resource action: a verb on a URL path.',
};
const resourceAttributes = {
  $: 'An action on a resource, as authorization sees it.',
  namespace: 'The namespace; empty for cluster-scoped resources, or for "in every namespace" with list, watch and the like.',
  verb: 'The verb: get, list, watch, create, update, patch, delete, deletecollection, or "*" for any.',
  group: 'The API group, "" for the core group; "*" for any.',
  version: 'The API version; "*" for any.',
  resource: 'The resource by plural name, e.g. pods; "*" for any.',
  subresource: 'A subresource, e.g. log or status; "" for none.',
  name: "The object's name; empty means all objects.",
  fieldSelector: 'The field selector the request would carry, for authorizers that can take it into account.',
  labelSelector: 'The label selector the request would carry, for authorizers that can take it into account.',
};
const selectorAttributes = (what: string) => ({
  $: `A ${what} selector of a request to be authorized.`,
  rawSelector: `The selector as a string, e.g. as given to --${what}-selector.`,
  requirements: 'The selector as parsed requirements. Set this or rawSelector.',
});

export const authentication: GroupTable = {
  prefix: 'io.k8s.api.authentication.v1',
  types: {
    TokenReview: {
      spec: 'The token to check.',
      status: 'Whether it is valid and whom it belongs to.',
    },
    TokenReviewSpec: {
      $: 'A bearer token to authenticate.',
      token: 'The token, as sent in an Authorization: Bearer header.',
      audiences: "Audiences the token must be valid for. Defaults to the apiserver's own.",
    },
    TokenReviewStatus: {
      $: 'The result of a token review.',
      authenticated: 'Whether the token is valid.',
      user: 'Who the token belongs to.',
      audiences: 'Which of the requested audiences the token is valid for.',
      error: 'Why the token could not be checked.',
    },
    UserInfo: userInfo,
    TokenRequest: {
      spec: 'The audiences, lifetime and binding of the token wanted.',
      status: 'The token issued and when it expires.',
    },
    TokenRequestSpec: {
      $: 'A token to issue for a service account (`kubectl create token`).',
      audiences: 'Who the token is meant for. Defaults to the apiserver.',
      expirationSeconds: 'How long it should be valid, in seconds. Defaults to one hour; the server may shorten or lengthen it.',
      boundObjectRef: 'An object (Pod, Secret or Node) the token is tied to: it stops working when that object is deleted.',
    },
    TokenRequestStatus: {
      $: 'The token issued.',
      token: 'The token, to send as a bearer token.',
      expirationTimestamp: 'When it expires.',
    },
    BoundObjectReference: {
      $: 'The object a token is bound to.',
      kind: 'Pod, Secret or Node.',
      apiVersion: 'The object\'s API version, "v1".',
      name: "The object's name.",
      uid: "The object's uid, so the token dies with exactly that object.",
    },
    SelfSubjectReview: { status: 'Who the server thinks you are (`kubectl auth whoami`).' },
    SelfSubjectReviewStatus: { $: "The caller's identity.", userInfo: "The caller's user name, uid, groups and extra facts." },
  },
};

export const authorization: GroupTable = {
  prefix: 'io.k8s.api.authorization.v1',
  types: {
    SubjectAccessReview: { spec: 'The user and the action to check.', status: 'Whether the action is allowed.' },
    LocalSubjectAccessReview: { spec: 'The user and the action to check, in this namespace.', status: 'Whether the action is allowed.' },
    SelfSubjectAccessReview: {
      spec: 'The action to check for the caller (`kubectl auth can-i`).',
      status: 'Whether the caller may do it.',
    },
    SelfSubjectRulesReview: {
      spec: "The namespace to list the caller's permissions in (`kubectl auth can-i --list`).",
      status: 'The rules that apply to the caller there.',
    },
    SubjectAccessReviewSpec: {
      $: 'A user and an action to check. Set exactly one of resourceAttributes and nonResourceAttributes.',
      resourceAttributes: 'A resource action: verb, group, resource, namespace, name.',
      nonResourceAttributes: 'A non-resource action: a verb on a URL path.',
      user: 'The user to check, e.g. "jane" or "system:serviceaccount:ns:name".',
      groups: "The user's groups.",
      uid: "The user's uid.",
      extra: "The user's extra facts.",
    },
    SelfSubjectAccessReviewSpec: selfSpec,
    SubjectAccessReviewStatus: reviewStatus,
    ResourceAttributes: resourceAttributes,
    NonResourceAttributes: {
      $: 'An action on a URL path that is not a resource.',
      path: 'The path, e.g. /healthz or /metrics.',
      verb: 'The HTTP verb in lowercase, e.g. get.',
    },
    FieldSelectorAttributes: selectorAttributes('field'),
    LabelSelectorAttributes: selectorAttributes('label'),
    SelfSubjectRulesReviewSpec: { $: "Where to list the caller's permissions.", namespace: 'The namespace.' },
    SubjectRulesReviewStatus: {
      $: "The caller's permissions in a namespace.",
      resourceRules: 'What the caller may do with resources.',
      nonResourceRules: 'What the caller may do with non-resource URLs.',
      incomplete: 'True when some authorizer cannot list its rules (e.g. a webhook): the caller may be allowed more.',
      evaluationError: 'An error met while collecting the rules.',
    },
    ResourceRule: {
      $: 'Verbs the caller may use on some resources.',
      verbs: 'The verbs allowed; "*" for all.',
      apiGroups: 'The API groups; "" is the core group, "*" all.',
      resources: 'The resources; "*" for all, "pods/log" for a subresource.',
      resourceNames: 'Only these objects, by name; empty means all.',
    },
    NonResourceRule: {
      $: 'Verbs the caller may use on non-resource URLs.',
      verbs: 'The verbs allowed, lowercase; "*" for all.',
      nonResourceURLs: 'The paths; a trailing * matches a prefix.',
    },
  },
};

export const certificates: GroupTable = {
  prefix: 'io.k8s.api.certificates.v1',
  types: {
    CertificateSigningRequest: {
      spec: "The PEM certificate request, the signer to sign it and the usages wanted, with the requester's identity (filled in by the server).",
      status: 'Approved, Denied or Failed conditions, and the signed certificate once issued.',
    },
    CertificateSigningRequestSpec: {
      $: "A request for a certificate. The requester's identity fields are set by the server from the credentials of the create.",
      request: 'The PKCS#10 certificate request, PEM encoded (base64 again in JSON), e.g. from `openssl req -new`.',
      signerName:
        'Who should sign it: kubernetes.io/kube-apiserver-client (client certificates for the API), kubernetes.io/kube-apiserver-client-kubelet, kubernetes.io/kubelet-serving, or a custom signer.',
      expirationSeconds: 'The lifetime wanted, in seconds, at least 600. The signer may give less.',
      usages: 'What the certificate is for, e.g. ["client auth"] or ["digital signature", "key encipherment", "server auth"].',
      username: 'The user who created the request. Set by the server.',
      uid: 'The uid of the user who created the request. Set by the server.',
      groups: 'The groups of the user who created the request. Set by the server.',
      extra: 'Extra facts about the user who created the request. Set by the server.',
    },
    CertificateSigningRequestStatus: {
      $: 'The state of a certificate request.',
      conditions: 'Approved or Denied (`kubectl certificate approve/deny`), and Failed if the signer could not sign.',
      certificate: 'The signed certificate, PEM encoded, once issued (base64 again in JSON).',
    },
    CertificateSigningRequestCondition: conditionFields('request', 'Approved, Denied, Failed', {
      lastUpdateTime: 'When the condition was last written.',
    }),
  },
};

export const node: GroupTable = {
  prefix: 'io.k8s.api.node.v1',
  types: {
    RuntimeClass: {
      handler:
        'The container runtime handler that runs pods of this class, as configured on the nodes (e.g. "runc" or "kata"). Cannot be changed.',
      overhead: "Resources the runtime itself uses per pod, added to the pod's own requests for scheduling and quota.",
      scheduling: 'Where pods of this class may run: node labels they need and taints they tolerate, merged into each pod.',
    },
    Overhead: {
      $: 'The resource overhead of a runtime.',
      podFixed: 'Resources added to every pod of the class, e.g. {memory: 120Mi, cpu: 250m}.',
    },
    Scheduling: {
      $: 'The nodes that support a RuntimeClass.',
      nodeSelector: "Labels the node must have; merged into each pod's nodeSelector.",
      tolerations: 'Tolerations added to each pod of the class.',
    },
  },
};
