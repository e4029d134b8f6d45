// The shape of an object of any kind as the store holds it. Types only, so
// that the storage vocabulary (types.ts) and SerializedObject can both name
// it without importing each other.
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** ObjectMeta as the server writes it: kubernetes-types marks what the server sets (uid, resourceVersion...) read-only, for clients. */
export type ServerObjectMeta = { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] };

/**
 * An object of any kind with its metadata: what the store holds (it stamps
 * resourceVersion there), and what a request body is once registry's
 * checkTypeMeta has accepted it. The rest of the object is read by code
 * that knows the kind, through kubernetes-types (`obj as Pod`).
 */
export interface StoredObject {
  apiVersion?: string;
  kind?: string;
  metadata: ServerObjectMeta;
}

/** An object to store: its metadata may still be missing (the store adds it). */
export type ObjectToStore = Partial<StoredObject>;
