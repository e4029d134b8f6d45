// The patch package's public surface: JSON patch, JSON merge patch and
// strategic merge patch, the merge rules of the built-in kinds, and the
// error they all throw.
export { applyJsonPatch, type JsonPatchOptions } from './json-patch.ts';
export { applyMergePatch } from './merge-patch.ts';
export { applyStrategicMergePatch } from './strategic-merge.ts';
export { lookupMergeRule, mergeSchemaFor, TYPES as MERGE_TYPES } from './merge-keys.ts';
export type { FieldSpec, MergeRule, MergeSchema, PatchStrategy } from './merge-keys.ts';
export { PatchError } from './patch-error.ts';
export type { PatchErrorCode } from './patch-error.ts';
