// Server-side apply of custom resources: the SMD resolver (shared/smd) that
// answers a custom resource's apiVersion and kind with the shape of its
// version's structural schema, metadata being ObjectMeta's, so field
// ownership follows the CRD's list types and map types as kube's does.
import { atomOfStructural, atomOfType, registerSchemaResolver, SCALAR, type Atom } from '../../shared/smd/index.ts';
import type { StructuralSchema } from '../../shared/smd/structural.ts';
import { findResourceByKindAndVersion } from './registry.ts';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const atoms = new WeakMap<object, Atom>();

/** The atom of a whole custom resource with `schema`: its fields as the schema says, plus the type and object metadata. */
export function customResourceAtom(schema: StructuralSchema | undefined): Atom {
  const inner = atomOfStructural({ type: 'object', ...schema });
  if (inner.kind !== 'map') return inner;
  return {
    kind: 'map',
    atomic: false,
    field(n) {
      if (n === 'metadata') return atomOfType(OBJECT_META);
      if (n === 'apiVersion' || n === 'kind') return SCALAR;
      return inner.field(n);
    },
    elem: () => inner.elem(),
  };
}

let registered = false;

/** Registers the resolver once. */
export function registerCustomResourceSchemas(): void {
  if (registered) return;
  registered = true;
  registerSchemaResolver((apiVersion, kind) => {
    const info = findResourceByKindAndVersion(apiVersion, kind);
    if (!info) return undefined;
    const key = info.schema ?? info.version;
    let a = atoms.get(key);
    if (!a) atoms.set(key, (a = customResourceAtom(info.schema)));
    return a;
  });
}
