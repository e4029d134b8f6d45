// The structural-schema walker for custom resources: validation, defaulting
// and pruning against a CRD version's openAPIV3Schema, with kube's
// semantics and words. It is written by hand rather than on a JSON Schema
// library because no such library does what kube-apiserver does here: it
// would neither prune undeclared fields (and report their paths for
// fieldValidation) nor apply `default`s, and it would word its errors its
// own way, where kubectl users see kube's field errors
// (`spec.replicas in body should be greater than or equal to 1`).
export { validateValue, jsonTypeName } from './validate.ts';
export { applyDefaults } from './defaults.ts';
export { pruneObject, pruneValue } from './prune.ts';
export { checkFormat } from './formats.ts';
export { childPath, isJsonObject, type JSONSchemaProps, type ValidationRule } from './types.ts';
