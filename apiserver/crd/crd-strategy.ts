// The write rules of CustomResourceDefinitions (kube's
// customresourcedefinition strategy): v1 defaults (singular, listKind,
// conversion None), a new CRD's status (empty accepted names, the storage
// version stored), storedVersions kept growing on update, generation
// tracked, and validateCRD.
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { Strategy } from '../registry/strategy-types.ts';
import { storageVersion, type CustomResourceDefinition } from './crd.ts';
import { validateCRD } from './crd-validation.ts';
import { customResourceStrategy } from './custom-resource.ts';
import { restoreSchemas } from './schema-passthrough.ts';

/** kube's SetDefaults_CustomResourceDefinition (v1). */
export function defaultCRD(crd: CustomResourceDefinition): void {
  const spec = crd.spec;
  if (!spec || typeof spec !== 'object') return;
  const names = spec.names;
  if (names && typeof names === 'object') {
    if (!names.singular && typeof names.kind === 'string') names.singular = names.kind.toLowerCase();
    if (!names.listKind && typeof names.kind === 'string' && names.kind) names.listKind = `${names.kind}List`;
  }
  spec.conversion ??= { strategy: 'None' };
}

/** Adds the storage version to status.storedVersions (kube's strategy does it on create and update). */
function recordStorageVersion(crd: CustomResourceDefinition): void {
  const v = storageVersion(crd)?.name;
  if (!v) return;
  crd.status ??= {};
  const stored = (crd.status.storedVersions ??= []);
  if (!stored.includes(v)) stored.push(v);
}

const crdStrategy: Strategy = {
  nameRule: 'subdomain',
  tracksGeneration: true,
  allowCreateOnUpdate: false,
  returnDeletedObject: true,
  initialStatus: () => ({ acceptedNames: { plural: '', kind: '' } }),
  defaults: (obj) => {
    restoreSchemas(obj as CustomResourceDefinition);
    defaultCRD(obj as CustomResourceDefinition);
  },
  prepareCreate: (obj) => recordStorageVersion(obj as CustomResourceDefinition),
  prepareUpdate: (obj) => recordStorageVersion(obj as CustomResourceDefinition),
  validate: (obj, old) => validateCRD(obj as CustomResourceDefinition, old as CustomResourceDefinition | undefined),
};

/**
 * The strategy of the API extension kinds: CRDs themselves, and every
 * served custom resource; undefined for the built-in kinds.
 */
export function extensionStrategy(rt: ResourceType): Strategy | undefined {
  if (rt.group === 'apiextensions.k8s.io' && rt.plural === 'customresourcedefinitions') return crdStrategy;
  return customResourceStrategy(rt);
}
