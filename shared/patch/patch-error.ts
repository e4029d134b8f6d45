// The one error type every patch function throws. Its message is the text
// kube's libraries produce (evanphx/json-patch, strategicpatch); its code is
// the HTTP status kube's apiserver answers with for that failure.

/** HTTP statuses a patch failure maps to in kube: 400 bad patch, 422 patch does not apply, 500 anything else. */
export type PatchErrorCode = 400 | 422 | 500;

/** A patch could not be decoded or applied. */
export class PatchError extends Error {
  /** The status kube's apiserver returns for this failure (the apiserver still decides). */
  readonly code: PatchErrorCode;

  constructor(message: string, code: PatchErrorCode = 422) {
    super(message);
    this.name = 'PatchError';
    this.code = code;
  }
}
