// The shape of a kind's write rules (strategy.ts holds the rules themselves):
// types only, so the API extension kinds (apiserver/crd/) can write theirs
// without importing the table that looks them up.
import type { UserInfo } from '../auth/user-info.ts';
import type { FieldError } from '../../shared/api/errors.ts';
import type { NameRule } from './names.ts';
import type { KubeObject } from './object.ts';

/** A step that changes an object in place (defaults). */
export type Hook = (obj: KubeObject) => void;

/** The write rules of one kind. */
export interface Strategy {
  nameRule: NameRule;
  /** metadata.generation starts at 1 and moves when spec changes. */
  tracksGeneration: boolean;
  /** PUT of a missing object creates it. */
  allowCreateOnUpdate: boolean;
  /** DELETE answers with the object instead of a Success Status. */
  returnDeletedObject: boolean;
  /** The status a newly created object starts with (the client's status is dropped). */
  initialStatus?: (obj: KubeObject) => unknown;
  /** Kind-specific defaults, applied on create and update. */
  defaults?: Hook;
  /** Kind-specific validation; `old` is set on update. */
  validate?: (obj: KubeObject, old?: KubeObject) => FieldError[];
  /** Create-only preparation that needs the new uid (a Job's generated selector). */
  prepareCreate?: (obj: KubeObject, uid: string, requestor?: UserInfo) => void;
  /** Update-only preparation before validation (keep allocated values, bump template generations). */
  prepareUpdate?: (obj: KubeObject, old: KubeObject) => void;
}
