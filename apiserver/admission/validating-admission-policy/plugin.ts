// kube's ValidatingAdmissionPolicy admission plugin (admission/plugin/
// policy/validating): every write (and delete) is matched against each
// policy's matchConstraints and each of its bindings' matchResources; for
// each matching (binding, param) the policy's CEL is evaluated, and a
// failed validation is denied (Deny: the request fails with kube's
// message, code and reason), warned (Warn: a Warning header) or audited
// (Audit: the validation_failure audit annotation), per the binding's
// validationActions. Configuration errors (an unknown paramKind, a param
// that is not found with parameterNotFoundAction Deny) deny unless the
// policy's failurePolicy is Ignore. Policies, bindings, params and
// namespaces are read from the store; each policy is compiled once per
// generation. Policies and bindings themselves are never admitted by
// policies, as in kube.
import type {
  ParamKind,
  ParamRef,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
} from 'kubernetes-types/admissionregistration/v1.js';
import type { Namespace } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import type { ResourceType } from '../../../shared/api/resource-type.ts';
import { findResourceByKind, RESOURCES } from '../../../shared/api/resources.ts';
import { matchesLabels } from '../../../shared/labels/index.ts';
import { selectorFromLabelSelector } from '../../../shared/labels/meta-selector.ts';
import { createAuthorizer } from '../../auth/authorizer.ts';
import type { Authorizer } from '../../auth/authorizer-types.ts';
import { toScale } from '../../registry/scale.ts';
import type { Store } from '../../storage/store.ts';
import type { ObjectToStore, StoredObject } from '../../storage/types.ts';
import type { AdmissionAttributes, AdmissionPlugin, Operation } from '../types.ts';
import { celAuthorizer } from './authorizer-library.ts';
import { compilePolicy, type CompiledPolicy } from './compile.ts';
import { validate, type Activation, type Decision } from './evaluate.ts';
import { matchResources, type GVR, type MatchRequest, type MatchResources } from './matching.ts';
import { toCel } from './values.ts';

export const PLUGIN_NAME = 'ValidatingAdmissionPolicy';
export const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';
const GROUP = 'admissionregistration.k8s.io';
const POLICIES = `/registry/${GROUP}/validatingadmissionpolicies`;
const BINDINGS = `/registry/${GROUP}/validatingadmissionpolicybindings`;
const NAMESPACES = '/registry/core/namespaces';
const MAX_AUDIT_ANNOTATION_VALUE = 10 * 1024;

/** The objects of a cluster-scoped bucket, re-read only when it changed. */
class ClusterObjects<T> {
  private version = -1;
  private items: T[] = [];
  constructor(
    private readonly store: Store,
    private readonly bucket: string,
  ) {}
  list(): T[] {
    const v = this.store.bucketVersion(this.bucket);
    if (v !== this.version) {
      this.version = v;
      this.items = this.store.list({ bucket: this.bucket, keyPrefix: `${this.bucket}/` }).items.map((j) => JSON.parse(j) as T);
    }
    return this.items;
  }
}

/** kube's schema.GroupVersionKind.String(): "apps/v1, Kind=Deployment", "/v1, Kind=ConfigMap". */
function gvkString(pk: ParamKind): string {
  const [group, version] = (pk.apiVersion ?? '').includes('/') ? pk.apiVersion!.split('/', 2) : ['', pk.apiVersion ?? ''];
  return `${group}/${version}, Kind=${pk.kind ?? ''}`;
}

/** The resource a paramKind names, or undefined when it is not served. */
export function paramResource(pk: ParamKind): ResourceType | undefined {
  const [group, version] = (pk.apiVersion ?? '').includes('/') ? pk.apiVersion!.split('/', 2) : ['', pk.apiVersion ?? ''];
  const rt = findResourceByKind(group, pk.kind ?? '');
  return rt && rt.version === version ? rt : undefined;
}

/** kube's generic.CollectParams: the params a binding names ([null] when the policy takes none), or a configuration error. */
export function collectParams(
  store: Store,
  pk: ParamKind | undefined,
  ref: ParamRef | undefined,
  namespace: string,
): { params: unknown[] } | { error: string } {
  if (!pk || !ref) return { params: [null] };
  const rt = paramResource(pk);
  if (!rt) return { error: `paramKind kind \`${gvkString(pk)}\` not known` };
  let prefix = rt.storagePrefix;
  if (rt.namespaced) {
    const ns = ref.namespace || namespace;
    if (!ns) return { error: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
    prefix = `${prefix}/${ns}`;
  } else if (ref.namespace) {
    return { error: 'paramRef.namespace must not be provided for a cluster-scoped `paramKind`' };
  }
  let params: unknown[];
  if (ref.name) {
    const entry = store.get(`${prefix}/${ref.name}`);
    params = entry ? [JSON.parse(entry.json)] : [];
  } else if (ref.selector) {
    const sel = selectorFromLabelSelector(ref.selector);
    params = store
      .list({ bucket: rt.storagePrefix, keyPrefix: `${prefix}/` })
      .items.map((j) => JSON.parse(j) as StoredObject)
      .filter((o) => matchesLabels(sel, o.metadata.labels ?? {}));
  } else {
    return { error: 'one of name or selector must be provided' };
  }
  if (params.length === 0 && ref.parameterNotFoundAction === 'Deny')
    return { error: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
  // A param carries its apiVersion and kind, as kube's wrappedParam gives them.
  return { params: params.map((p) => ({ apiVersion: pk.apiVersion, kind: pk.kind, ...(p as object) })) };
}

/** The reduced Namespace kube exposes as namespaceObject. */
function namespaceObject(ns: Namespace | undefined): unknown {
  if (!ns) return null;
  const m = ns.metadata ?? {};
  const metadata = Object.fromEntries(
    Object.entries({
      name: m.name,
      generateName: m.generateName,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      generation: m.generation,
      creationTimestamp: m.creationTimestamp,
      deletionTimestamp: m.deletionTimestamp,
      deletionGracePeriodSeconds: m.deletionGracePeriodSeconds,
      labels: m.labels,
      annotations: m.annotations,
      finalizers: m.finalizers,
    }).filter(([, v]) => v !== undefined),
  );
  return { metadata, spec: ns.spec ?? {}, status: ns.status ?? {} };
}

const OPTIONS_KIND: Record<Operation, string> = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions', CONNECT: '' };

/** One write as the plugin sees it. */
interface Request {
  rt: ResourceType;
  op: Operation;
  obj: ObjectToStore | null;
  old: StoredObject | null;
  attrs: AdmissionAttributes;
}

/** A denial, with what kube's error needs. */
interface Denial {
  policy: string;
  binding?: string;
  message: string;
  reason?: string;
}

/** Options of the plugin. */
export interface ValidatingAdmissionPolicyOptions {
  /** The apiserver's authorizer, for the `authorizer` variable (default: kube's Node,RBAC chain over the store). */
  authorizer?: Authorizer;
}

/** The ValidatingAdmissionPolicy admission plugin over `store`. */
export function validatingAdmissionPolicy(store: Store, opts: ValidatingAdmissionPolicyOptions = {}): AdmissionPlugin {
  const policies = new ClusterObjects<ValidatingAdmissionPolicy>(store, POLICIES);
  const bindings = new ClusterObjects<ValidatingAdmissionPolicyBinding>(store, BINDINGS);
  const compiled = new Map<string, CompiledPolicy>();
  let authorizer = opts.authorizer;

  /** The compiled policy for this generation of `p` (earlier generations are dropped). */
  function compiledFor(p: ValidatingAdmissionPolicy): CompiledPolicy {
    const key = `${p.metadata?.uid}/${p.metadata?.generation ?? p.metadata?.resourceVersion}`;
    let c = compiled.get(key);
    if (!c) {
      for (const k of compiled.keys()) if (k.startsWith(`${p.metadata?.uid}/`)) compiled.delete(k);
      c = compilePolicy(p.spec ?? {});
      compiled.set(key, c);
    }
    return c;
  }

  const namespaceOf = (name: string): Namespace | undefined => {
    const e = name ? store.get(`${NAMESPACES}/${name}`) : undefined;
    return e ? (JSON.parse(e.json) as Namespace) : undefined;
  };

  function matchRequest(r: Request): MatchRequest {
    const isNs = r.rt.group === '' && r.rt.plural === 'namespaces';
    const name = r.attrs.name || r.obj?.metadata?.name || r.old?.metadata?.name || '';
    // kube's attributes carry a Namespace's own name as the namespace of a request for it.
    const namespace = isNs ? name : r.attrs.namespace;
    const nsObject = !isNs && namespace ? namespaceOf(namespace) : undefined;
    const equivalents = RESOURCES.filter((o) => o !== r.rt && o.storagePrefix === r.rt.storagePrefix).map((o) => ({
      group: o.group,
      version: o.version,
      resource: o.plural,
    }));
    return {
      resource: { group: r.rt.group, version: r.rt.version, resource: r.rt.plural },
      subresource: r.attrs.subresource,
      operation: r.op,
      namespace,
      name,
      objectLabels: r.obj ? (r.obj.metadata?.labels ?? {}) : undefined,
      oldObjectLabels: r.old ? (r.old.metadata?.labels ?? {}) : undefined,
      namespaceLabels: nsObject ? (nsObject.metadata?.labels ?? {}) : undefined,
      equivalents,
    };
  }

  function activationFor(r: Request, matched: GVR): Omit<Activation, 'params'> {
    const scale = r.attrs.subresource === 'scale';
    const view = (o: ObjectToStore | null) => (o && scale ? toScale(o as StoredObject) : o);
    const kind = scale
      ? { group: 'autoscaling', version: 'v1', kind: 'Scale' }
      : { group: r.rt.group, version: r.rt.version, kind: r.rt.kind };
    const matchedRt = RESOURCES.find((o) => o.group === matched.group && o.version === matched.version && o.plural === matched.resource);
    const user = r.attrs.user;
    // Every field of kube's request type is there, empty when the request has no value for it.
    const request: Record<string, unknown> = {
      kind: matchedRt && !scale ? { group: matchedRt.group, version: matchedRt.version, kind: matchedRt.kind } : kind,
      resource: matched,
      requestKind: kind,
      requestResource: { group: r.rt.group, version: r.rt.version, resource: r.rt.plural },
      subResource: r.attrs.subresource,
      requestSubResource: r.attrs.subresource,
      name: r.attrs.name || r.obj?.metadata?.name || r.old?.metadata?.name || '',
      namespace: r.attrs.namespace,
      operation: r.op,
      userInfo: { username: user.username, uid: user.uid ?? '', groups: user.groups, extra: user.extra ?? {} },
      dryRun: r.attrs.dryRun,
      options: OPTIONS_KIND[r.op] ? { kind: OPTIONS_KIND[r.op], apiVersion: 'meta.k8s.io/v1' } : null,
    };
    authorizer ??= createAuthorizer(store);
    const isNs = r.rt.group === '' && r.rt.plural === 'namespaces';
    return {
      object: toCel(view(r.obj)),
      oldObject: toCel(view(r.old)),
      request: toCel(request),
      namespaceObject: toCel(namespaceObject(isNs ? undefined : namespaceOf(r.attrs.namespace))),
      authorizer: celAuthorizer(user, authorizer, {
        apiGroup: r.rt.group,
        resource: r.rt.plural,
        subresource: r.attrs.subresource,
        namespace: r.attrs.namespace,
        name: String(request.name),
      }),
    };
  }

  /** kube's dispatcher.Dispatch: throws the first denial; warns and annotates on the way. */
  function dispatch(r: Request): void {
    const all = bindings.list();
    if (all.length === 0) return;
    const byPolicy = new Map<string, ValidatingAdmissionPolicyBinding[]>();
    for (const b of all) {
      const name = b.spec?.policyName ?? '';
      (byPolicy.get(name) ?? byPolicy.set(name, []).get(name)!).push(b);
    }
    const denials: Denial[] = [];
    const annotated = new Set<string>();
    const annotate = (key: string, value: string) => {
      // kube's admission annotations are never overwritten: the first value of a key stays.
      if (annotated.has(key)) return;
      annotated.add(key);
      r.attrs.annotate?.(key, value);
    };
    let req: MatchRequest | undefined;
    const sorted = [...policies.list()].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
    for (const policy of sorted) {
      const policyName = policy.metadata?.name ?? '';
      const bound = (byPolicy.get(policyName) ?? []).sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
      if (bound.length === 0) continue;
      const failOpen = policy.spec?.failurePolicy === 'Ignore';
      const configError = (message: string, binding?: string) => {
        if (!failOpen) denials.push({ policy: policyName, binding, message });
      };
      req ??= matchRequest(r);
      const constraints = policy.spec?.matchConstraints;
      if (!constraints) {
        configError('failed to configure policy: policy contained no match constraints, a required field');
        continue;
      }
      const matched = matchResources(constraints, req);
      if (!matched.matches) {
        if (matched.error) configError(`failed to configure policy: ${matched.error}`);
        continue;
      }
      const paramKind = policy.spec?.paramKind ?? undefined;
      if (paramKind && !paramResource(paramKind)) {
        configError(`failed to configure policy: failed to find resource referenced by paramKind: '${gvkString(paramKind)}'`);
        continue;
      }
      const program = compiledFor(policy);
      const published = new Map<string, string[]>();
      let activation: Omit<Activation, 'params'> | undefined;
      for (const binding of bound) {
        const bindingName = binding.metadata?.name ?? '';
        const mr = binding.spec?.matchResources;
        if (mr) {
          const m = matchResources(mr, req);
          if (!m.matches) {
            if (m.error) configError(`failed to configure binding: ${m.error}`, bindingName);
            continue;
          }
        }
        const params = collectParams(store, paramKind, binding.spec?.paramRef ?? undefined, r.attrs.namespace);
        if ('error' in params) {
          configError(`failed to configure binding: ${params.error}`, bindingName);
          continue;
        }
        activation ??= activationFor(r, matched.resource);
        const actions: string[] = binding.spec?.validationActions ?? [];
        for (const param of params.params) {
          const result = validate(program, policy.spec?.failurePolicy, { ...activation, params: toCel(param) });
          for (const d of result.decisions) {
            if (d.action !== 'deny') continue;
            for (const action of actions) act(action, d, policyName, binding, denials, r, annotate);
          }
          for (const a of result.auditAnnotations) {
            if (a.action === 'publish') {
              const values = published.get(a.key) ?? published.set(a.key, []).get(a.key)!;
              const value = a.value!.slice(0, MAX_AUDIT_ANNOTATION_VALUE);
              if (!values.includes(value)) values.push(value);
            } else if (a.action === 'error') {
              denials.push({ policy: policyName, binding: bindingName, message: a.error! });
            }
          }
        }
      }
      for (const [key, values] of published) annotate(`${policyName}/${key}`, values.join(', '));
    }
    if (denials.length) throw denialError(r, denials[0]);
  }

  return {
    name: PLUGIN_NAME,
    contextual: true,
    appliesTo: (rt) =>
      !(rt.group === GROUP && (rt.plural === 'validatingadmissionpolicies' || rt.plural === 'validatingadmissionpolicybindings')),
    // A create that no bound policy can match may still be prepared on a worker.
    wanted: (rt) => {
      if (bindings.list().length === 0) return false;
      const bound = new Set(bindings.list().map((b) => b.spec?.policyName));
      return policies.list().some((p) => bound.has(p.metadata?.name) && mayMatch(p.spec?.matchConstraints, rt));
    },
    validate(op, rt, obj, old, attrs) {
      if (!attrs) return;
      dispatch({ rt, op, obj, old: old ?? null, attrs: { ...attrs, operation: op } });
    },
    admitDelete(rt, obj, attrs) {
      // An eviction is a create of pods/eviction whose Eviction body admission is not given: not matched here.
      if (attrs.subresource) return;
      dispatch({ rt, op: 'DELETE', obj: null, old: obj, attrs });
    },
  };
}

/** Whether any resource rule of `mr` could select a request for `rt` (its group and resource, any subresource). */
function mayMatch(mr: MatchResources | undefined, rt: ResourceType): boolean {
  const any = (items: string[] | undefined, v: string) => (items ?? []).some((i) => i === '*' || i === v);
  // Other versions of the same objects count too (matchPolicy Equivalent).
  const candidates = RESOURCES.filter((o) => o.storagePrefix === rt.storagePrefix);
  return (mr?.resourceRules ?? []).some((r) =>
    candidates.some(
      (c) =>
        any(r.apiGroups, c.group) &&
        any(
          (r.resources ?? []).map((res) => res.split('/')[0]),
          c.plural,
        ),
    ),
  );
}

/** What one denied decision does under one of the binding's validationActions. */
function act(
  action: string,
  d: Decision,
  policy: string,
  binding: ValidatingAdmissionPolicyBinding,
  denials: Denial[],
  r: Request,
  annotate: (key: string, value: string) => void,
): void {
  const bindingName = binding.metadata?.name ?? '';
  if (action === 'Deny') denials.push({ policy, binding: bindingName, message: d.message, reason: d.reason });
  else if (action === 'Warn')
    r.attrs.warn?.(`Validation failed for ValidatingAdmissionPolicy '${policy}' with binding '${bindingName}': ${d.message}`);
  else if (action === 'Audit')
    annotate(
      VALIDATION_FAILURE_ANNOTATION,
      JSON.stringify([
        {
          message: d.message,
          policy: binding.spec?.policyName ?? '',
          binding: bindingName,
          expressionIndex: d.index,
          validationActions: binding.spec?.validationActions ?? [],
        },
      ]),
    );
}

const CODES: Record<string, number> = { Forbidden: 403, Unauthorized: 401, RequestEntityTooLarge: 413, Invalid: 422 };

/** kube's denial: admission.NewForbidden's message, with the decision's reason and its code (422 Invalid by default). */
function denialError(r: Request, d: Denial): StatusError {
  const message = d.binding
    ? `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`
    : `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.message}`;
  const meta = r.obj?.metadata ?? r.old?.metadata;
  const name = r.attrs.name || meta?.name || meta?.generateName || '';
  const resource = r.rt.group ? `${r.rt.plural}.${r.rt.group}` : r.rt.plural;
  const reason = d.reason || 'Invalid';
  const text = name ? `${resource} "${name}" is forbidden: ${message}` : `${resource} is forbidden: ${message}`;
  return new StatusError(CODES[reason] ?? 422, reason, text, {
    name: name || undefined,
    group: r.rt.group || undefined,
    kind: r.rt.plural,
    causes: [{ message }],
  });
}
