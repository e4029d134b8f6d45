// Structural defaulting, as kube applies it to a custom resource on write
// and when it is read from storage: an absent property with a `default`
// gets a copy of it; a null that the schema does not allow (not nullable)
// is dropped, or replaced by the default when there is one; then the walk
// goes on into what is there (defaulted values included).
import { isJsonObject, type JSONSchemaProps } from './types.ts';

/** Applies `schema`'s defaults to `v` in place (objects and arrays). */
export function applyDefaults(v: unknown, s: JSONSchemaProps | undefined): void {
  if (!s) return;
  if (Array.isArray(v)) {
    if (s.items) for (const item of v) applyDefaults(item, s.items);
    return;
  }
  if (!isJsonObject(v)) return;
  const props = s.properties ?? {};
  for (const [k, sub] of Object.entries(props)) {
    const cur = v[k];
    if (cur === null && !sub.nullable) {
      if (sub.default !== undefined) v[k] = structuredClone(sub.default);
      else delete v[k];
    } else if (cur === undefined && sub.default !== undefined) {
      v[k] = structuredClone(sub.default);
    }
    if (v[k] !== undefined) applyDefaults(v[k], sub);
  }
  const extra = s.additionalProperties;
  if (isJsonObject(extra)) {
    for (const k of Object.keys(v)) if (!(k in props)) applyDefaults(v[k], extra);
  }
}
