// Descriptions of API types and fields, written for ksim in its own words for
// a learner (what a field does, its default, allowed values and units), and
// served as `description` in /openapi/v2 and /openapi/v3 so that
// `kubectl explain` has something to say. types.json carries none of them:
// this is the only place they live.
import { typeFor } from '../index.ts';
import type { GroupTable, TypeTable } from './types.ts';
import { COMMON_KIND_FIELDS, listFields } from './common.ts';
import { meta, intstr, resource } from './meta.ts';
import { corePod } from './core-pod.ts';
import { coreContainer } from './core-container.ts';
import { coreVolumes } from './core-volumes.ts';
import { coreStorage } from './core-storage.ts';
import { core } from './core.ts';
import { coreMisc } from './core-misc.ts';
import { appsExtra, autoscalingV1, coordination, discovery, events, policyExtra, scheduling } from './extra-groups.ts';
import { apps } from './apps.ts';
import { batch } from './batch.ts';
import { networking } from './networking.ts';
import { rbac } from './rbac.ts';
import { storage } from './storage.ts';
import { autoscaling } from './autoscaling.ts';
import { policy } from './policy.ts';
import { apiextensions } from './apiextensions.ts';
import { admission } from './admission.ts';
import { flowcontrol } from './flowcontrol.ts';
import { resourceDra } from './resource.ts';
import { apiregistration, corePlatform, networkingPlatform, storagePlatform } from './platform.ts';
import { authentication, authorization, certificates, node } from './auth.ts';

export type { GroupTable, TypeTable } from './types.ts';

/** Every group table; a type may appear in one table only (checked on load). */
export const GROUP_TABLES: readonly GroupTable[] = [
  meta,
  intstr,
  resource,
  corePod,
  coreContainer,
  coreVolumes,
  coreStorage,
  core,
  coreMisc,
  apps,
  batch,
  networking,
  rbac,
  storage,
  autoscaling,
  policy,
  discovery,
  events,
  coordination,
  scheduling,
  appsExtra,
  policyExtra,
  autoscalingV1,
  apiextensions,
  authentication,
  authorization,
  certificates,
  node,
  admission,
  storagePlatform,
  networkingPlatform,
  corePlatform,
  apiregistration,
  flowcontrol,
  resourceDra,
];

let byName: Map<string, TypeTable> | undefined;

function tables(): Map<string, TypeTable> {
  if (byName) return byName;
  const m = new Map<string, TypeTable>();
  for (const g of GROUP_TABLES) {
    for (const [short, table] of Object.entries(g.types)) {
      const name = `${g.prefix}.${short}`;
      if (m.has(name)) throw new Error(`descriptions: ${name} is described twice`);
      m.set(name, table);
    }
  }
  byName = m;
  return m;
}

/**
 * The description of one field of a type, by OpenAPI definition name and
 * JSON field name, e.g. fieldDescription('io.k8s.api.core.v1.Container',
 * 'livenessProbe'). apiVersion, kind and metadata of a top-level kind, and
 * items of a list kind, share one description unless the type has its own.
 */
export function fieldDescription(definitionName: string, field: string): string | undefined {
  if (field === '$') return undefined;
  const table = tables().get(definitionName);
  if (table && Object.hasOwn(table, field)) return table[field];
  const kind = typeFor(definitionName)?.gvk?.[0]?.kind;
  if (!kind) return undefined;
  if (kind.endsWith('List') && (field === 'items' || field === 'metadata')) return listFields(kind.slice(0, -'List'.length))[field];
  if (Object.hasOwn(COMMON_KIND_FIELDS, field)) return COMMON_KIND_FIELDS[field];
  return undefined;
}

/**
 * The description of a type, by OpenAPI definition name: ours when written,
 * otherwise the one-line description types.json has for top-level kinds.
 */
export function typeDescription(definitionName: string): string | undefined {
  return tables().get(definitionName)?.$ ?? typeFor(definitionName)?.description;
}

/** Every described definition name (for tests). */
export function describedTypes(): string[] {
  return [...tables().keys()].sort();
}

/**
 * The OpenAPI schema object with `description` put first (where kube-openapi
 * writes it), or the schema unchanged when there is no text.
 */
export function described<T extends object>(text: string | undefined, schema: T): T & { description?: string } {
  return text ? { description: text, ...schema } : schema;
}
