// A StatefulSet's ControllerRevisions, as kube's newRevision / ApplyRevision
// and getStatefulSetRevisions: a revision is the set's pod template as a
// strategic merge patch (history/'s templatePatch) with the set's annotations;
// applying one puts its template back on a copy of the set. Which revision is
// the update revision is decided here, purely; the controller does the writes.
import type { ControllerRevision, StatefulSet } from 'kubernetes-types/apps/v1.js';
import { applyStrategicMergePatch, mergeSchemaFor } from '../../../shared/patch/index.ts';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  equalRevision,
  findEqualRevisions,
  goJson,
  newControllerRevision,
  nextRevision,
  sortControllerRevisions,
  templatePatch,
} from '../history/history.ts';
import { SET_KIND } from './identity.ts';

const schema = mergeSchemaFor('StatefulSet');

/** history.ControllerRevisionHashLabel: the hash of a StatefulSet revision's data. */
export const REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';

/** kube's newRevision: the set's template as revision `revision`, named with `collisionCount`. */
export function newRevision(set: StatefulSet, revision: number, collisionCount: number): ControllerRevision {
  // Keys in Go's order, so the stored bytes are the ones kube (and kubectl's undo) compare.
  const data: unknown = JSON.parse(goJson(templatePatch(set.spec?.template)));
  const rev = newControllerRevision(set, SET_KIND, set.spec?.template?.metadata?.labels, data, revision, collisionCount);
  // history.NewControllerRevision labels a StatefulSet's revision controller.kubernetes.io/hash
  // (controller-revision-hash is the label of its Pods, and of a DaemonSet's revisions).
  const labels = rev.metadata!.labels!;
  const hash = labels[CONTROLLER_REVISION_HASH_LABEL];
  if (hash !== undefined && set.spec?.template?.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] === undefined) {
    delete labels[CONTROLLER_REVISION_HASH_LABEL];
  }
  if (hash !== undefined) labels[REVISION_HASH_LABEL] = hash;
  rev.metadata!.annotations = { ...rev.metadata!.annotations, ...set.metadata?.annotations };
  return rev;
}

/** ApplyRevision: a copy of the set with the revision's template. */
export function applyRevision(set: StatefulSet, rev: ControllerRevision): StatefulSet {
  return applyStrategicMergePatch(set, rev.data, schema);
}

/** What getStatefulSetRevisions must do for the update revision. */
export type UpdateRevisionChoice =
  /** The newest revision already is the set's template. */
  | { kind: 'latest'; revision: ControllerRevision }
  /** An older revision is (a rollback): give it the next revision number. */
  | { kind: 'renumber'; revision: ControllerRevision; to: number }
  /** No revision is: create this one. */
  | { kind: 'create'; revision: ControllerRevision };

/** The choice for `set` among its revisions (any order). */
export function chooseUpdateRevision(set: StatefulSet, revisions: ControllerRevision[], collisionCount: number): UpdateRevisionChoice {
  const sorted = sortControllerRevisions(revisions);
  const candidate = newRevision(set, nextRevision(sorted), collisionCount);
  const equal = findEqualRevisions(sorted, candidate);
  if (equal.length && equalRevision(sorted[sorted.length - 1], equal[equal.length - 1])) {
    return { kind: 'latest', revision: sorted[sorted.length - 1] };
  }
  if (equal.length) return { kind: 'renumber', revision: equal[equal.length - 1], to: candidate.revision };
  return { kind: 'create', revision: candidate };
}
