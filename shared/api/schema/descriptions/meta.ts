// meta/v1 and the two apimachinery value types: object metadata, owner
// references, label selectors, managed fields, conditions, quantities.
import type { GroupTable } from './types.ts';
import { conditionFields } from './common.ts';

export const meta: GroupTable = {
  prefix: 'io.k8s.apimachinery.pkg.apis.meta.v1',
  types: {
    ObjectMeta: {
      $: 'Metadata every stored object has: its identity (name, namespace, uid), how it is organised (labels, annotations, owners) and bookkeeping the server maintains.',
      name: 'The name of the object, unique among objects of its kind in its namespace (or in the cluster for cluster-scoped kinds). Most kinds want a DNS subdomain: lowercase letters, digits, "-" and ".", at most 253 characters. It cannot be changed later.',
      generateName:
        'A prefix from which the server makes a unique name when name is empty, by appending five random characters (e.g. "web-" becomes "web-x7k2p"). Used by controllers that create many similar objects.',
      namespace:
        'The namespace the object lives in. Empty takes the namespace of the request (kubectl uses the one of its context, usually "default"); cluster-scoped kinds (Node, Namespace, ClusterRole, ...) have none. It cannot be changed later.',
      selfLink: 'Deprecated and no longer set by the server; kept in the schema for old clients.',
      uid: 'A unique identifier the server gives the object when it is created, never reused. It tells apart two objects that had the same name at different times. Read-only.',
      resourceVersion:
        'An opaque version string the server changes on every write. Send it back with an update to say "only if nobody changed it since I read it" (a conflict, 409, otherwise); lists and watches use it as a starting point. Do not parse it.',
      generation:
        'A counter the server increases each time the desired state (usually spec) changes, but not for status or metadata-only writes. Controllers copy it to status.observedGeneration once they have acted on it. Read-only.',
      creationTimestamp: 'When the server stored the object (RFC 3339, UTC, in seconds). Set by the server; read-only.',
      deletionTimestamp:
        'Set by the server when the object has been asked to be deleted but is still waiting, for finalizers to be removed or for its graceful termination period (pods). The object disappears once both are done. Read-only.',
      deletionGracePeriodSeconds:
        'How many seconds the object was given to shut down when its deletion was requested; set together with deletionTimestamp. Read-only.',
      labels:
        'Key/value pairs used to organise and select objects, e.g. {app: web, tier: frontend}. Selectors on Services, Deployments and kubectl -l match on them. Keys may carry a DNS prefix ("example.com/team"); values are at most 63 characters.',
      annotations:
        'Key/value pairs for information that is not used to select objects: notes, tool settings, build details. Values can be long; the total size is limited to 256 KiB.',
      ownerReferences:
        'The objects this one belongs to, e.g. the ReplicaSet that created a Pod. When every owner is deleted, the garbage collector deletes this object too (unless the delete orphans it).',
      finalizers:
        'Names of cleanup steps that must finish before the object is really deleted. Deleting an object with finalizers only sets deletionTimestamp; whoever owns each finalizer removes its name when done, and the object goes away when the list is empty.',
      managedFields:
        'Which client (field manager) set which fields, and with which operation, as server-side apply records it. Used to detect conflicts between managers; kubectl hides it unless --show-managed-fields is given.',
    },
    OwnerReference: {
      $: 'A pointer from an object to one of its owners, used for garbage collection and to find the controller of an object.',
      apiVersion: 'The apiVersion of the owner, such as "apps/v1".',
      kind: 'The kind of the owner, such as "ReplicaSet".',
      name: 'The name of the owner, in the same namespace as this object (or cluster-scoped).',
      uid: "The owner's metadata.uid. A reference whose uid no longer exists counts as a deleted owner.",
      controller:
        'True when this owner is the controller that manages the object. At most one owner may be the controller; controllers only adopt objects that have none.',
      blockOwnerDeletion:
        'When true and the owner is deleted with foreground propagation, the owner stays (with a deletionTimestamp) until this object is gone. Defaults to false.',
    },
    LabelSelector: {
      $: 'A query over labels. An object matches when it has every label in matchLabels and meets every requirement in matchExpressions. An empty selector matches everything; a missing one usually matches nothing.',
      matchLabels:
        'Labels the object must have with exactly these values, e.g. {app: web}. Each pair is the same as a matchExpressions entry with operator In and one value.',
      matchExpressions: 'Requirements on labels, all of which must hold, written as key, operator and values.',
    },
    LabelSelectorRequirement: {
      $: 'One requirement of a label selector: a key, an operator and, for In and NotIn, the values to compare with.',
      key: 'The label key the requirement is about.',
      operator:
        'How the label is compared: In (its value is one of values), NotIn (it is not, or the label is absent), Exists (the label is present, any value) or DoesNotExist.',
      values: 'The values for In and NotIn (at least one). Must be empty for Exists and DoesNotExist.',
    },
    FieldSelectorRequirement: {
      $: 'One requirement on a field, as field selectors are written: a field path, an operator and values.',
      key: 'The field path, e.g. spec.nodeName.',
      operator: 'In, NotIn, Exists or DoesNotExist.',
      values: 'The values for In and NotIn; empty for Exists and DoesNotExist.',
    },
    ManagedFieldsEntry: {
      $: 'The set of fields one field manager owns in an object, recorded by server-side apply.',
      manager:
        'The name of the client that made the change, such as "kubectl-client-side-apply" or a controller name (the fieldManager request parameter).',
      operation: 'How the fields came to be owned: "Apply" (server-side apply) or "Update" (create, update or patch).',
      apiVersion: 'The API version the fields are written in; field paths can differ between versions.',
      time: 'When this manager last changed one of its fields (RFC 3339).',
      fieldsType: 'The format of fieldsV1. The only one is "FieldsV1".',
      fieldsV1: 'The owned fields, as a tree of field paths ("f:spec", "f:replicas", list items as "k:{...}" or "v:...").',
      subresource: 'The subresource the write went through, such as "status" or "scale"; empty for the object itself.',
    },
    Condition: conditionFields('object', 'Ready, Available, Progressing', {
      observedGeneration:
        'The metadata.generation the writer had seen when it set this condition; older than the current generation means it may be stale.',
    }),
    ListMeta: {
      $: 'Metadata of a list response: where the list stands in the history of changes and how to fetch the next page.',
      resourceVersion:
        'The version of the collection this list was read at. Start a watch from it to see every change made after the list.',
      continue:
        'When the list was cut short by limit: a token to pass as the continue parameter to get the next page. Empty on the last page. Tokens expire (410 Gone) after a few minutes.',
      remainingItemCount: 'How many more items there are after this page, when the server can tell; an estimate once filters are involved.',
      selfLink: 'Deprecated and no longer set by the server.',
    },
    DeleteOptions: {
      $: 'Options of a delete request (the body of DELETE, or the query parameters of the same names).',
      gracePeriodSeconds:
        "Seconds the object gets to shut down before it is removed (pods: before SIGKILL). Unset uses the object's own default; 0 deletes at once.",
      propagationPolicy:
        'What happens to objects this one owns: Background (delete this now, the garbage collector deletes the dependents afterwards, the default for most kinds), Foreground (delete the dependents first, keeping this with a deletionTimestamp until they are gone) or Orphan (leave them, removing the owner reference).',
      orphanDependents: 'Deprecated: true is the same as propagationPolicy Orphan. Set one or the other, not both.',
      preconditions: 'Only delete if the object still has this uid or resourceVersion (409 Conflict otherwise).',
      dryRun: 'With ["All"], check and answer the request as if it were done, but store nothing.',
      ignoreStoreReadErrorWithClusterBreakingPotential:
        'Delete an object even though it cannot be read from storage (corrupt or undecryptable), skipping finalizers and admission. A last resort that can leave the cluster inconsistent.',
    },
    Preconditions: {
      $: 'Conditions an object must meet for a delete to go ahead.',
      uid: 'The uid the object must have, so that a newer object of the same name is not deleted by mistake.',
      resourceVersion: 'The resourceVersion the object must have, so that it is only deleted if nobody changed it.',
    },
    Status: {
      $: 'The answer to a request that returns no object, or that failed: a success flag, an HTTP code and the reason.',
      status: '"Success" or "Failure".',
      message: 'A human-readable description of what happened, such as the error kubectl prints.',
      reason:
        'A machine-readable CamelCase reason, such as NotFound, AlreadyExists, Conflict, Invalid or Forbidden. Empty when nothing more precise is known.',
      details: 'More about the failure: which object, and for Invalid, which fields were wrong and why.',
      code: 'The HTTP status code of the answer, e.g. 404 or 422.',
    },
    StatusDetails: {
      $: 'Details of a failure: the object concerned and the causes.',
      name: 'The name of the object concerned, if any.',
      group: 'The API group of the object concerned.',
      kind: 'The kind (or resource) of the object concerned.',
      uid: 'The uid of the object concerned, when known.',
      causes: 'The individual problems, e.g. one entry per invalid field.',
      retryAfterSeconds: 'How many seconds the client should wait before trying again, when the failure is temporary.',
    },
    StatusCause: {
      $: 'One problem behind a failure.',
      reason: 'A machine-readable kind of problem, e.g. FieldValueRequired, FieldValueInvalid or FieldValueNotSupported.',
      message: 'A human-readable description of the problem.',
      field: 'The field with the problem, as a path such as spec.containers[0].image.',
    },
    WatchEvent: {
      $: 'One event of a watch stream: what happened and the object it happened to.',
      type: 'ADDED, MODIFIED, DELETED, BOOKMARK (only a new resourceVersion to resume from) or ERROR (object is then a Status).',
      object: 'The object as it is after the change (or as it was, for DELETED), or a Status for ERROR.',
    },
    Time: { $: 'A point in time, written in JSON as an RFC 3339 string in UTC with second precision, e.g. "2026-01-02T15:04:05Z".' },
    FieldsV1: { $: 'A set of field paths, as JSON, used by managedFields.' },
  },
};

export const intstr: GroupTable = {
  prefix: 'io.k8s.apimachinery.pkg.util',
  types: {
    'intstr.IntOrString': {
      $: 'A value that is either a number or a string, e.g. a port given as 8080 or by name as "http", or a count given as 3 or as a percentage such as "25%".',
    },
  },
};

export const resource: GroupTable = {
  prefix: 'io.k8s.apimachinery.pkg.api',
  types: {
    'resource.Quantity': {
      $: 'An amount written as a number with an optional suffix: binary (Ki, Mi, Gi, Ti: powers of 1024), decimal (k, M, G, T: powers of 1000) or milli (m). CPU is in cores ("500m" is half a core); memory and storage in bytes ("128Mi").',
    },
  },
};
