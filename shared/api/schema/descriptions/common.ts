// Descriptions that many types share word for word: the apiVersion, kind and
// metadata of every top-level kind, the fields of status conditions, and the
// fields the older in-tree volume plugins have in common.
import type { TypeTable } from './types.ts';

/** apiVersion, kind and metadata of any top-level kind. */
export const COMMON_KIND_FIELDS: Readonly<Record<string, string>> = {
  apiVersion:
    'The group and version of the schema this object is written in, such as "v1" or "apps/v1". The server converts between versions it serves; see `kubectl api-versions`.',
  kind: 'The kind of object this is, in CamelCase, such as "Pod" or "Deployment". With apiVersion it tells the server which schema to read the rest of the object with.',
  metadata:
    "The object's name, namespace, labels, annotations and the bookkeeping the server adds (uid, resourceVersion, creation time, owners, managed fields).",
};

/** items and metadata of a list kind (PodList, ...): `kind` is the kind of the items. */
export function listFields(kind: string): Record<string, string> {
  return {
    items: `The ${kind} objects in the list.`,
    metadata: 'Where the list stands: the resourceVersion it was read at (to start a watch from) and the continue token of the next page.',
  };
}

/**
 * The fields of a status condition of some object. `what` names the object
 * ("deployment"), `types` lists the usual condition types, if the built-in
 * controller sets any.
 */
export function conditionFields(what: string, types?: string, extra: Record<string, string> = {}): TypeTable {
  return {
    $: `One observation about the ${what}, such as whether it is ready or making progress. Conditions are written by the controller that owns the ${what}.`,
    type: `Which aspect of the ${what} this condition reports.${types ? ` Common types: ${types}.` : ''}`,
    status: 'Whether the condition holds: "True", "False" or "Unknown" (a string, not a boolean).',
    reason: 'A short machine-readable CamelCase word saying why the condition is in its current status.',
    message: 'A human-readable explanation of the current status, with details.',
    lastTransitionTime: 'When the status last changed from one value to another (RFC 3339 time).',
    ...extra,
  };
}

/** Fields shared by the older in-tree volume plugins (cloud disks, network filesystems). */
export const LEGACY = {
  fsType:
    'Filesystem to format the volume with if it is not formatted yet, such as "ext4" or "xfs". Empty means the plugin\'s default, usually ext4.',
  readOnly: 'Mount the volume read-only in the containers. Defaults to false (read-write).',
  secretRef: 'A Secret holding the credentials the plugin uses to reach the storage system.',
  partition:
    'Which partition of the disk to mount, such as 1 for /dev/sda1. 0 or unset mounts the whole device (used when it has no partition table).',
  monitors: 'Addresses (host:port) of the Ceph monitors to contact.',
  lun: 'The logical unit number of the target to attach.',
  volumeID: 'The storage system identifier of the volume to attach.',
} as const;
