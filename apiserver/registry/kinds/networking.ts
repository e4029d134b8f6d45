// networking.k8s.io/v1 kinds: NetworkPolicy, Ingress and IngressClass (the
// defaults of networking/v1 defaults.go and the field checks of
// pkg/apis/networking/validation, with kube's messages).
import type {
  HTTPIngressPath,
  IPBlock,
  Ingress,
  IngressBackend,
  IngressClass,
  NetworkPolicy,
  NetworkPolicyPeer,
  NetworkPolicyPort,
} from 'kubernetes-types/networking/v1.js';
import { isDNS1123Subdomain } from '../../../shared/labels/validation.ts';
import { isObject } from '../../../shared/patch/go-format.ts';
import { child, fe, index, type FieldError } from './field.ts';
import { portNameProblems, portNumProblems, validCIDR, validateLabelSelector } from './validators.ts';

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];
const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];
const SCOPES = ['Cluster', 'Namespace'];

const list = <T>(v: T[] | null | undefined): T[] => (Array.isArray(v) ? v : []);

/** SetDefaults_NetworkPolicy (policyTypes) and SetDefaults_NetworkPolicyPort (protocol TCP). */
export function defaultNetworkPolicy(np: NetworkPolicy): void {
  if (!isObject(np.spec)) np.spec = { podSelector: {} };
  const spec = np.spec;
  if (!isObject(spec.podSelector)) spec.podSelector = {};
  for (const r of [...list(spec.ingress), ...list(spec.egress)])
    for (const p of list(r?.ports)) if (isObject(p) && !p.protocol) p.protocol = 'TCP';
  if (list(spec.policyTypes).length === 0) spec.policyTypes = list(spec.egress).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
}

function validatePort(port: NetworkPolicyPort, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (port.protocol && !PROTOCOLS.includes(port.protocol)) errs.push(fe.notSupported(child(path, 'protocol'), port.protocol, PROTOCOLS));
  const endPort = port.endPort;
  if (port.port !== undefined && port.port !== null) {
    if (typeof port.port === 'number') {
      for (const m of portNumProblems(port.port)) errs.push(fe.invalid(child(path, 'port'), port.port, m));
      if (endPort !== undefined && endPort !== null) {
        if (endPort < port.port) errs.push(fe.invalid(child(path, 'endPort'), endPort, 'must be greater than or equal to `port`'));
        for (const m of portNumProblems(endPort)) errs.push(fe.invalid(child(path, 'endPort'), endPort, m));
      }
    } else {
      if (endPort !== undefined && endPort !== null)
        errs.push(fe.invalid(child(path, 'endPort'), endPort, 'may not be specified when `port` is non-numeric'));
      for (const m of portNameProblems(String(port.port))) errs.push(fe.invalid(child(path, 'port'), port.port, m));
    }
  } else if (endPort !== undefined && endPort !== null)
    errs.push(fe.invalid(child(path, 'endPort'), endPort, 'may not be specified when `port` is not specified'));
  return errs;
}

function cidrBits(cidr: string): { base: number; bits: number } | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  if (!m) return undefined;
  const bits = Number(m[5]);
  const ip = m.slice(1, 5).reduce((a, x) => a * 256 + Number(x), 0);
  const mask = bits === 0 ? 0 : 2 ** 32 - 2 ** (32 - bits);
  return { base: Math.floor(ip / 2 ** (32 - bits)) * 2 ** (32 - bits), bits: mask >= 0 ? bits : 0 };
}

function validateIPBlock(b: IPBlock, path: string): FieldError[] {
  if (!b.cidr) return [fe.required(child(path, 'cidr'))];
  const errs = validCIDR(b.cidr, child(path, 'cidr'));
  const outer = errs.length ? undefined : cidrBits(b.cidr);
  list(b.except).forEach((ex, i) => {
    const p = index(child(path, 'except'), i);
    const e = validCIDR(ex, p);
    errs.push(...e);
    const inner = e.length ? undefined : cidrBits(ex);
    if (!outer || !inner) return;
    const size = 2 ** (32 - outer.bits);
    const contained = inner.base >= outer.base && inner.base < outer.base + size;
    if (!contained || outer.bits >= inner.bits) errs.push(fe.invalid(p, ex, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

function validatePeer(peer: NetworkPolicyPeer, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  if (isObject(peer.podSelector)) {
    n++;
    errs.push(...validateLabelSelector(peer.podSelector, child(path, 'podSelector')));
  }
  if (isObject(peer.namespaceSelector)) {
    n++;
    errs.push(...validateLabelSelector(peer.namespaceSelector, child(path, 'namespaceSelector')));
  }
  if (isObject(peer.ipBlock)) {
    n++;
    errs.push(...validateIPBlock(peer.ipBlock, child(path, 'ipBlock')));
  }
  if (n === 0) errs.push(fe.required(path, 'must specify a peer'));
  else if (n > 1 && isObject(peer.ipBlock)) errs.push(fe.forbidden(path, 'may not specify both ipBlock and another peer'));
  return errs;
}

/** ValidateNetworkPolicySpec. */
export function validateNetworkPolicy(np: NetworkPolicy): FieldError[] {
  const spec = isObject(np.spec) ? np.spec : { podSelector: {} };
  const errs = validateLabelSelector(spec.podSelector, 'spec.podSelector');
  list(spec.ingress).forEach((r, i) => {
    const p = index('spec.ingress', i);
    list(r?.ports).forEach((port, j) => errs.push(...validatePort(port, index(child(p, 'ports'), j))));
    list(r?.from).forEach((peer, j) => errs.push(...validatePeer(peer, index(child(p, 'from'), j))));
  });
  list(spec.egress).forEach((r, i) => {
    const p = index('spec.egress', i);
    list(r?.ports).forEach((port, j) => errs.push(...validatePort(port, index(child(p, 'ports'), j))));
    list(r?.to).forEach((peer, j) => errs.push(...validatePeer(peer, index(child(p, 'to'), j))));
  });
  const types = list(spec.policyTypes);
  if (types.length > 2) {
    errs.push(
      fe.invalidShown(
        'spec.policyTypes',
        `&[]networking.PolicyType{${types.map((t) => JSON.stringify(t)).join(', ')}}`,
        'may not specify more than two policyTypes',
      ),
    );
    return errs;
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(t)) errs.push(fe.notSupported(index('spec.policyTypes', i), t, POLICY_TYPES));
  });
  return errs;
}

const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const WILDCARD = /^\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** NameIsDNS1035Label (kube's ValidateServiceName). */
function dns1035Problems(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push('must be no more than 63 characters');
  if (!DNS1035.test(v))
    errs.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  return errs;
}

/** IsWildcardDNS1123Subdomain. */
function wildcardProblems(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push('must be no more than 253 characters');
  if (!WILDCARD.test(v))
    errs.push(
      "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  return errs;
}

const isIPv4 = (v: string) => /^\d+\.\d+\.\d+\.\d+$/.test(v) || v.includes(':');

function validateBackend(b: IngressBackend, path: string): FieldError[] {
  const hasResource = isObject(b.resource);
  const svc = isObject(b.service) ? b.service : undefined;
  if (hasResource && svc) return [fe.invalid(path, '', 'cannot set both resource and service backends')];
  if (hasResource) {
    const r = b.resource!;
    const errs: FieldError[] = [];
    if (!r.kind) errs.push(fe.required(child(child(path, 'resource'), 'kind')));
    if (!r.name) errs.push(fe.required(child(child(path, 'resource'), 'name')));
    return errs;
  }
  if (!svc) return [fe.invalid(path, '', 'resource or service backend is required')];
  const errs: FieldError[] = [];
  const name = typeof svc.name === 'string' ? svc.name : '';
  if (!name) errs.push(fe.required(`${path}.service.name`));
  else for (const m of dns1035Problems(name)) errs.push(fe.invalid(`${path}.service.name`, name, m));
  const portName = svc.port?.name ?? '';
  const portNumber = svc.port?.number ?? 0;
  if (portName && portNumber) errs.push(fe.invalid(path, '', 'cannot set both port name & port number'));
  else if (portName) for (const m of portNameProblems(portName)) errs.push(fe.invalid(`${path}.service.port.name`, portName, m));
  else if (portNumber) for (const m of portNumProblems(portNumber)) errs.push(fe.invalid(`${path}.service.port.number`, portNumber, m));
  else errs.push(fe.required(path, 'port name or number is required'));
  return errs;
}

function validatePath(p: HTTPIngressPath, path: string): FieldError[] {
  if (!p.pathType) return [fe.required(child(path, 'pathType'), 'pathType must be specified')];
  const errs: FieldError[] = [];
  const value = p.path ?? '';
  if (p.pathType === 'Exact' || p.pathType === 'Prefix') {
    if (!value.startsWith('/')) errs.push(fe.invalid(child(path, 'path'), value, 'must be an absolute path'));
    for (const seq of INVALID_PATH_SEQUENCES)
      if (value.includes(seq)) errs.push(fe.invalid(child(path, 'path'), value, `must not contain '${seq}'`));
    for (const suf of INVALID_PATH_SUFFIXES)
      if (value.endsWith(suf)) errs.push(fe.invalid(child(path, 'path'), value, `cannot end with '${suf}'`));
  } else if (p.pathType === 'ImplementationSpecific') {
    if (value.length > 0 && !value.startsWith('/')) errs.push(fe.invalid(child(path, 'path'), value, 'must be an absolute path'));
  } else errs.push(fe.notSupported(child(path, 'pathType'), p.pathType, PATH_TYPES));
  errs.push(...validateBackend(p.backend ?? {}, child(path, 'backend')));
  return errs;
}

/** ValidateIngressCreate / ValidateIngressUpdate's spec checks. */
export function validateIngress(ing: Ingress, old?: Ingress): FieldError[] {
  const spec = isObject(ing.spec) ? ing.spec : {};
  const errs: FieldError[] = [];
  const rules = list(spec.rules);
  if (rules.length === 0 && !isObject(spec.defaultBackend))
    errs.push(
      fe.invalidShown(
        'spec',
        Array.isArray(spec.rules) ? '[]networking.IngressRule{}' : '[]networking.IngressRule(nil)',
        'either `defaultBackend` or `rules` must be specified',
      ),
    );
  if (isObject(spec.defaultBackend)) errs.push(...validateBackend(spec.defaultBackend, 'spec.defaultBackend'));
  rules.forEach((r, i) => {
    const p = index('spec.rules', i);
    const host = r?.host ?? '';
    if (host) {
      if (isIPv4(host)) errs.push(fe.invalid(child(p, 'host'), host, 'must be a DNS name, not an IP address'));
      const problems = host.includes('*') ? wildcardProblems(host) : isDNS1123Subdomain(host);
      for (const m of problems) errs.push(fe.invalid(child(p, 'host'), host, m));
    }
    if (isObject(r?.http)) {
      const paths = list(r.http.paths);
      if (paths.length === 0) errs.push(fe.required(`${p}.http.paths`));
      paths.forEach((hp, j) => errs.push(...validatePath(hp, index(`${p}.http.paths`, j))));
    }
  });
  list(spec.tls).forEach((t, i) => {
    const p = index('spec.tls', i);
    list(t?.hosts).forEach((h, j) => {
      const problems = h.includes('*') ? wildcardProblems(h) : isDNS1123Subdomain(h);
      for (const m of problems) errs.push(fe.invalid(index(child(p, 'hosts'), j), h, m));
    });
    if (t?.secretName) for (const m of isDNS1123Subdomain(t.secretName)) errs.push(fe.invalid(child(p, 'secretName'), t.secretName, m));
  });
  if (typeof spec.ingressClassName === 'string')
    for (const m of isDNS1123Subdomain(spec.ingressClassName)) errs.push(fe.invalid('spec.ingressClassName', spec.ingressClassName, m));
  const annotation = ing.metadata?.annotations?.['kubernetes.io/ingress.class'];
  if (!old && annotation !== undefined && typeof spec.ingressClassName === 'string' && annotation !== spec.ingressClassName)
    errs.push(fe.invalid('annotations.kubernetes.io/ingress.class', annotation, 'must match `ingressClassName` when both are specified'));
  return errs;
}

/** ValidateIngressClass(Update). */
export function validateIngressClass(ic: IngressClass, old?: IngressClass): FieldError[] {
  const spec = isObject(ic.spec) ? ic.spec : {};
  const errs: FieldError[] = [];
  const controller = typeof spec.controller === 'string' ? spec.controller : '';
  if (old && controller !== (old.spec?.controller ?? '')) errs.push(fe.invalid('spec.controller', controller, 'field is immutable'));
  if (!controller) errs.push(fe.required('spec.controller'));
  else {
    if (controller.length > 250) errs.push(fe.tooLong('spec.controller', 250));
    const slash = controller.indexOf('/');
    if (slash < 0) errs.push(fe.invalid('spec.controller', controller, 'must be a domain-prefixed path (such as "acme.io/foo")'));
    else
      for (const m of isDNS1123Subdomain(controller.slice(0, slash)))
        errs.push(fe.invalid('spec.controller', controller.slice(0, slash), m));
  }
  const params = spec.parameters;
  if (isObject(params)) {
    const p = 'spec.parameters';
    if (!params.kind) errs.push(fe.required(child(p, 'kind')));
    if (!params.name) errs.push(fe.required(child(p, 'name')));
    if (!params.scope) errs.push(fe.required(child(p, 'scope')));
    else if (!SCOPES.includes(params.scope)) errs.push(fe.notSupported(child(p, 'scope'), params.scope, SCOPES));
    else if (params.scope === 'Namespace' && !params.namespace)
      errs.push(fe.required(child(p, 'namespace'), "`parameters.scope` is set to 'Namespace'"));
    else if (params.scope === 'Cluster' && params.namespace)
      errs.push(fe.forbidden(child(p, 'namespace'), "`parameters.scope` is set to 'Cluster'"));
  }
  return errs;
}

/** The PathType default of networking/v1 (none: pathType is required) and the IngressClass parameters' scope default. */
export function defaultIngressClass(ic: IngressClass): void {
  const params = ic.spec?.parameters;
  if (isObject(params) && !params.scope) params.scope = 'Cluster';
}
