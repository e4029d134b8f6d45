// What a custom resource write's strategy hooks need from the request that
// they are not passed: its fieldValidation mode, and where its warnings go.
// The dispatch step (dispatch.ts) runs the generic handlers inside this
// context; the hooks (pruning's unknown fields) read it.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FieldValidationMode } from '../validation/index.ts';

/** One request's context. */
export interface CustomRequestContext {
  fieldValidation: FieldValidationMode;
  /** The request's verb: a strict decoding error of a create or update is worded as a decoding error, a patch's as itself. */
  verb?: string;
  warnings: string[];
  /**
   * A CRD write's schemas by version name, taken out of the body before the
   * generic decode-time checks (schema-passthrough.ts) and put back by the
   * CRD strategy.
   */
  crdSchemas?: Map<string, unknown>;
}

/** The store of the current request's context. */
export const customRequest = new AsyncLocalStorage<CustomRequestContext>();
