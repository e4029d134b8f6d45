// A small TypeScript version of kube's structured-merge-diff (SMD), the
// library behind server-side apply and metadata.managedFields. It is written
// here by hand because there is no JavaScript implementation: SMD exists only
// in Go (kubernetes-sigs/structured-merge-diff), and the apiserver's field
// ownership, conflicts and apply merge all rest on it.
//
// - fieldpath.ts: path elements in their FieldsV1 spelling, FieldSet (union,
//   difference, intersection, has) and the FieldsV1 document (`f:`, `k:{..}`,
//   `v:`, `i:`, ".").
// - schema.ts: the shapes objects are walked with (atoms), read from
//   shared/api/schema's types.json: x-kubernetes-list-type atomic/set/map with
//   its keys, x-kubernetes-map-type, and patch-merge-key lists as keyed lists
//   (as kube's OpenAPI-to-SMD conversion reads them); other lists are atomic.
// - typed.ts: the fields an object sets, the comparison of two versions, the
//   apply merge and the removal of fields.
// - update.ts: the Updater: update (non-apply writes) and apply (conflicts,
//   force, removal of fields no longer applied).
//
// Schemas of other kinds: `registerSchemaResolver((apiVersion, kind) =>
// atom | undefined)` puts a resolver before the built-in schemas; the CRD
// code registers one that answers its custom resources with the atom of
// their structural schema (`atomOfStructural(openAPIV3Schema)` builds it).
// A kind no resolver answers gets SMD's deduced shape: every object a
// granular map, every list atomic.
export * from './fieldpath.ts';
export * from './schema.ts';
export * from './typed.ts';
export * from './update.ts';
export { atomOfStructural } from './structural.ts';
