// The atom of a CRD's structural schema (an openAPIV3Schema), for the
// resolver the CRD code registers (see index.ts): properties make a struct,
// additionalProperties a map, items a list typed by x-kubernetes-list-type;
// x-kubernetes-preserve-unknown-fields without properties, or no type at all,
// is the deduced shape.
import { DEDUCED, SCALAR, type Atom } from './schema.ts';

/** The parts of a JSON schema (apiextensions JSONSchemaProps) the shape depends on. */
export interface StructuralSchema {
  type?: string;
  properties?: Record<string, StructuralSchema>;
  additionalProperties?: StructuralSchema | boolean;
  items?: StructuralSchema;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
}

/** The atom of one structural schema node. */
export function atomOfStructural(s: StructuralSchema | undefined): Atom {
  if (!s) return DEDUCED;
  if (s['x-kubernetes-int-or-string']) return SCALAR;
  if (s.type === 'array') {
    let item: Atom | undefined;
    const itemAtom = () => (item ??= atomOfStructural(s.items));
    const lt = s['x-kubernetes-list-type'];
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    if (lt === 'map' && keys.length) return { kind: 'list', rel: 'map', keys, item: itemAtom };
    if (lt === 'set') return { kind: 'list', rel: 'set', keys: [], item: itemAtom };
    return { kind: 'list', rel: 'atomic', keys: [], item: itemAtom };
  }
  if (s.type === 'object' || s.properties || s.additionalProperties) {
    const props = s.properties ?? {};
    const ap = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    if (!s.properties && !ap) return DEDUCED;
    const memo = new Map<string, Atom>();
    let elem: Atom | undefined;
    return {
      kind: 'map',
      atomic: s['x-kubernetes-map-type'] === 'atomic',
      field(n) {
        if (!Object.hasOwn(props, n)) return undefined;
        let a = memo.get(n);
        if (!a) memo.set(n, (a = atomOfStructural(props[n])));
        return a;
      },
      elem: () => (elem ??= ap ? atomOfStructural(ap) : DEDUCED),
    };
  }
  if (s.type === undefined) return DEDUCED;
  return SCALAR;
}
