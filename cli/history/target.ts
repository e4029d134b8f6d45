// What `ksim history|diff|blame|trace` are asked about: KIND/NAME resolved as
// kubectl resolves a resource argument (plural, singular, kind, short name,
// or RESOURCE.GROUP), first against the built-in resources, then against the
// apiserver's discovery for custom resources; and the history API path of it.
import { RESOURCES } from '../../shared/api/resources.ts';
import { HISTORY_API_VERSION } from '../../shared/api/history-types.ts';
import type { KubeClient } from '../../shared/client/kube-client.ts';

/** A resource as the history CLI needs it. */
export interface TargetResource {
  group: string;
  plural: string;
  namespaced: boolean;
}

/** An object to read the history of. */
export interface Target extends TargetResource {
  name: string;
  /** Set for namespaced resources. */
  namespace?: string;
}

interface Named {
  group: string;
  plural: string;
  singular: string;
  kind: string;
  shortNames: readonly string[];
  namespaced: boolean;
}

function matches(r: Named, word: string, group: string | undefined): boolean {
  if (group !== undefined && r.group !== group) return false;
  const w = word.toLowerCase();
  return r.plural === w || r.singular === w || r.kind.toLowerCase() === w || r.shortNames.includes(w);
}

/** Splits "deployments.apps" into the word and the group ("" for none given: any group). */
function splitWord(resource: string): { word: string; group: string | undefined } {
  const dot = resource.indexOf('.');
  return dot < 0 ? { word: resource, group: undefined } : { word: resource.slice(0, dot), group: resource.slice(dot + 1) };
}

/** The built-in resource `resource` names, if any. */
export function builtinResource(resource: string): TargetResource | undefined {
  const { word, group } = splitWord(resource);
  const rt = RESOURCES.find((r) => matches(r, word, group));
  return rt && { group: rt.group, plural: rt.plural, namespaced: rt.namespaced };
}

interface ResourceList {
  resources?: { name: string; singularName?: string; kind: string; shortNames?: string[]; namespaced: boolean }[];
}

/** Resolves `resource` against the apiserver's discovery (custom resources). */
async function discoveredResource(client: KubeClient, resource: string): Promise<TargetResource | undefined> {
  const { word, group } = splitWord(resource);
  const groups = await client.request<{ groups?: { name: string; preferredVersion?: { groupVersion: string } }[] }>('GET', '/apis');
  for (const g of groups.groups ?? []) {
    if (group !== undefined && g.name !== group) continue;
    if (!g.preferredVersion) continue;
    const list = await client.request<ResourceList>('GET', `/apis/${g.preferredVersion.groupVersion}`).catch(() => undefined);
    for (const r of list?.resources ?? []) {
      if (r.name.includes('/')) continue;
      const named: Named = {
        group: g.name,
        plural: r.name,
        singular: r.singularName || r.kind.toLowerCase(),
        kind: r.kind,
        shortNames: r.shortNames ?? [],
        namespaced: r.namespaced,
      };
      if (matches(named, word, undefined)) return { group: g.name, plural: r.name, namespaced: r.namespaced };
    }
  }
  return undefined;
}

/** Parses "KIND/NAME" (or "KIND NAME" given as two words); throws with a kubectl-like message. */
export async function resolveTarget(client: KubeClient, words: string[], namespace: string): Promise<{ target: Target; rest: string[] }> {
  let resource: string;
  let name: string;
  let rest: string[];
  if (words[0]?.includes('/')) {
    [resource, name] = words[0].split('/', 2);
    rest = words.slice(1);
  } else {
    [resource, name] = [words[0], words[1]];
    rest = words.slice(2);
  }
  if (!resource || !name) throw new Error('expected KIND/NAME, e.g. deployment/web');
  const rt = builtinResource(resource) ?? (await discoveredResource(client, resource));
  if (!rt) throw new Error(`the server doesn't have a resource type "${resource}"`);
  const target: Target = { ...rt, name };
  if (rt.namespaced) target.namespace = namespace;
  return { target, rest };
}

/** The history API path of `target`, with `view` (object, diff, blame, trace) when given. */
export function historyPath(target: Target, view?: string): string {
  const segment = target.group ? `${target.plural}.${target.group}` : target.plural;
  let p = `/apis/${HISTORY_API_VERSION}`;
  if (target.namespace) p += `/namespaces/${encodeURIComponent(target.namespace)}`;
  p += `/${segment}/${encodeURIComponent(target.name)}`;
  return view ? `${p}/${view}` : p;
}

/** "deployments.apps/web" or "pods/web", as the output names an object. */
export const targetText = (t: { group: string; plural?: string; resource?: string; name: string; namespace?: string }): string =>
  `${t.group ? `${t.plural ?? t.resource}.${t.group}` : (t.plural ?? t.resource)}/${t.name}`;
