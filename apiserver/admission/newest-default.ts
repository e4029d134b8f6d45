// The rule kube's DefaultStorageClass and DefaultIngressClass admission share
// for picking "the default" when several objects are marked default: the
// newest by creationTimestamp, then the first by name.
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** Of the objects `isDefault` accepts, the newest (ties: the first by name); undefined when none is. */
export function newestDefault<T extends { metadata?: ObjectMeta }>(objects: readonly T[], isDefault: (o: T) => boolean): T | undefined {
  const defaults = objects.filter(isDefault);
  defaults.sort((a, b) => {
    const ta = Date.parse(a.metadata?.creationTimestamp ?? '') || 0;
    const tb = Date.parse(b.metadata?.creationTimestamp ?? '') || 0;
    if (ta !== tb) return tb - ta;
    return (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1;
  });
  return defaults[0];
}
