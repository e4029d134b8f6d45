// The apiextensions.k8s.io/v1 CustomResourceDefinition as the apiserver
// reads it, and the questions every CRD part asks of one: which versions
// are served, which is stored, what schema, subresources and printer
// columns a version has, and which conditions it carries.
import type { JSONSchemaProps } from './schema/index.ts';
import type { KubeObject } from '../registry/object.ts';

/** spec.names / status.acceptedNames. */
export interface CRDNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

/** An additionalPrinterColumns entry. */
export interface PrinterColumn {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

/** A version's subresources. */
export interface CRDSubresources {
  status?: Record<string, never>;
  scale?: { specReplicasPath?: string; statusReplicasPath?: string; labelSelectorPath?: string };
}

/** One entry of spec.versions. */
export interface CRDVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: CRDSubresources;
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: { jsonPath?: string }[];
}

/** A CRD condition. */
export interface CRDCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The object. */
export interface CustomResourceDefinition extends KubeObject {
  spec?: {
    group?: string;
    names?: CRDNames;
    scope?: string;
    versions?: CRDVersion[];
    conversion?: { strategy?: string; webhook?: unknown };
    preserveUnknownFields?: boolean;
  };
  status?: {
    acceptedNames?: CRDNames;
    conditions?: CRDCondition[];
    storedVersions?: string[];
  };
}

/** The finalizer that holds a deleted CRD until its objects are gone. */
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/** The condition of `type`, if set. */
export function condition(crd: CustomResourceDefinition, type: string): CRDCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

/** Whether condition `type` is True. */
export function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return condition(crd, type)?.status === 'True';
}

/**
 * Sets a condition, keeping lastTransitionTime when the status does not
 * change (kube's SetCRDCondition); returns whether anything changed.
 */
export function setCondition(crd: CustomResourceDefinition, c: CRDCondition, now: string): boolean {
  crd.status ??= {};
  const list = (crd.status.conditions ??= []);
  const i = list.findIndex((x) => x.type === c.type);
  const old = i >= 0 ? list[i] : undefined;
  if (old && old.status === c.status && old.reason === c.reason && old.message === c.message) return false;
  const next = { ...c, lastTransitionTime: old && old.status === c.status ? old.lastTransitionTime : now };
  if (i >= 0) list[i] = next;
  else list.push(next);
  return true;
}

/** The version stored, if exactly one is marked. */
export function storageVersion(crd: CustomResourceDefinition): CRDVersion | undefined {
  return crd.spec?.versions?.find((v) => v.storage);
}

/** A version by name. */
export function versionNamed(crd: CustomResourceDefinition, name: string): CRDVersion | undefined {
  return crd.spec?.versions?.find((v) => v.name === name);
}

/**
 * kube's version priority (version.CompareKubeAwareVersionStrings): GA
 * before beta before alpha, higher numbers first, anything else last, by name.
 */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return { rank: 3, major: 0, minor: 0 };
    return { rank: m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2, major: Number(m[1]), minor: Number(m[3] ?? 0) };
  };
  const x = parse(a);
  const y = parse(b);
  if (x.rank === 3 && y.rank === 3) return a < b ? -1 : a > b ? 1 : 0;
  if (x.rank !== y.rank) return x.rank - y.rank;
  if (x.major !== y.major) return y.major - x.major;
  return y.minor - x.minor;
}

/** The served versions, highest priority first (the first is the group's preferred version). */
export function servedVersions(crd: CustomResourceDefinition): CRDVersion[] {
  return (crd.spec?.versions ?? []).filter((v) => v.served && v.name).sort((a, b) => compareVersions(a.name!, b.name!));
}
