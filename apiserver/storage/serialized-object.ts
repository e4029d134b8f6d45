// An object already serialized to JSON, but for the resourceVersion that only
// the store can give it: a create worker thread serializes the new object with
// a placeholder there, and the store puts the revision in its place, so that
// the main thread neither parses nor serializes the object again.
import { randomBytes } from 'node:crypto';
import type { StoredObject } from './stored-object.ts';

/**
 * The resourceVersion placeholder: random per process, so no client can
 * guess it and put it elsewhere in an object; only hex digits, which JSON
 * never escapes.
 */
export const RESOURCE_VERSION_PLACEHOLDER = `rv-placeholder-${randomBytes(12).toString('hex')}`;

/** See the file comment. */
export class SerializedObject {
  private readonly at: number;

  /**
   * `json` is an object whose metadata.resourceVersion was `placeholder`
   * (the process's own, or the one a worker was given) when it was serialized.
   */
  constructor(
    readonly json: string,
    private readonly placeholder = RESOURCE_VERSION_PLACEHOLDER,
  ) {
    this.at = json.indexOf(`"resourceVersion":"${placeholder}"`);
    if (this.at < 0) throw new Error('SerializedObject: the JSON has no resourceVersion placeholder');
  }

  /** The JSON with `rev` as its resourceVersion. */
  withResourceVersion(rev: number): string {
    const start = this.at + '"resourceVersion":"'.length;
    return this.json.slice(0, start) + rev + this.json.slice(start + this.placeholder.length);
  }

  /** The object itself, with no resourceVersion (for a retry under a new name after a generateName collision). */
  parse(): StoredObject {
    // The constructor found the placeholder: the metadata is there.
    const obj = JSON.parse(this.json) as StoredObject;
    delete obj.metadata.resourceVersion;
    return obj;
  }
}
