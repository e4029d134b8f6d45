// Decoding-time checks of request bodies: what kube-apiserver rejects or warns
// about while it turns JSON into Go structs, before registry validation.
export {
  decodeChecks,
  fieldValidationError,
  fieldValidationMode,
  unrecognizedError,
  warningHeaderValue,
  type DecodeChecksResult,
  type FieldValidationMode,
} from './decode-checks.ts';
