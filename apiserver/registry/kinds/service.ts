// Services: SetDefaults_Service, the clusterIP(s)/IP-family normalization
// the Service registry does before allocating, and ValidateService /
// ValidateServiceUpdate. Allocating cluster IPs and node ports is done
// elsewhere; patchServiceAllocatedValues is the registry's carry-over of
// allocated values for updates that omit them.
import { isObject } from '../../../shared/patch/go-format.ts';
import { isIP } from 'node:net';
import { child, fe, goStringSlice, index, jsonText, type FieldError } from './field.ts';
import type { Service, ServicePort, ServiceSpec } from 'kubernetes-types/core/v1.js';
import {
  dns1123Label,
  dns1123Subdomain,
  portNumOrName,
  portNumProblems,
  qualifiedName,
  validCIDR,
  validIP,
  validateLabels,
} from './validators.ts';

const unset = (v: unknown): v is null | undefined => v === undefined || v === null;

/** The node port range kube's default allocator serves. */
export const NODE_PORT_RANGE = { min: 30000, max: 32767 };

/** `ExternallyAccessible`: LoadBalancer, NodePort, or ClusterIP with external IPs. */
export function externallyAccessible(svc: Service | undefined): boolean {
  const t = svc?.spec?.type;
  const externalIPs = svc?.spec?.externalIPs;
  return t === 'LoadBalancer' || t === 'NodePort' || (t === 'ClusterIP' && Array.isArray(externalIPs) && externalIPs.length > 0);
}

/** `NeedsHealthCheck`: a LoadBalancer with externalTrafficPolicy Local. */
export function needsHealthCheck(svc: Service | undefined): boolean {
  return svc?.spec?.type === 'LoadBalancer' && svc.spec.externalTrafficPolicy === 'Local';
}

const isHeadless = (svc: Service | undefined) => Array.isArray(svc?.spec?.clusterIPs) && svc.spec.clusterIPs[0] === 'None';
const familyOf = (ip: string) => (isIP(ip) === 6 ? 'IPv6' : 'IPv4');

/** SetDefaults_Service, NormalizeClusterIPs (create) and the IP-family defaults of the registry. */
export function defaultService(svc: Service): void {
  if (!isObject(svc.spec)) svc.spec = {};
  const spec = svc.spec;
  if (!spec.sessionAffinity) spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP' && unset(spec.sessionAffinityConfig?.clientIP?.timeoutSeconds)) {
    spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  if (!spec.type) spec.type = 'ClusterIP';
  for (const p of Array.isArray(spec.ports) ? spec.ports : []) {
    if (!isObject(p)) continue;
    if (!p.protocol) p.protocol = 'TCP';
    if (unset(p.targetPort) || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (externallyAccessible(svc) && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = 'Cluster';
  if (unset(spec.internalTrafficPolicy) && ['NodePort', 'LoadBalancer', 'ClusterIP'].includes(spec.type))
    spec.internalTrafficPolicy = 'Cluster';
  if (spec.type === 'LoadBalancer' && unset(spec.allocateLoadBalancerNodePorts)) spec.allocateLoadBalancerNodePorts = true;
  if (spec.clusterIP && !(Array.isArray(spec.clusterIPs) && spec.clusterIPs.length > 0)) spec.clusterIPs = [spec.clusterIP];
  defaultServiceIPFamilies(svc);
}

/** The IP-family fields the registry infers before allocation (single-stack IPv4 cluster). */
export function defaultServiceIPFamilies(svc: Service): void {
  const spec = svc.spec;
  if (!isObject(spec) || spec.type === 'ExternalName') return;
  const ips: string[] = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
  if (unset(spec.ipFamilyPolicy) && (ips.length === 2 || (Array.isArray(spec.ipFamilies) && spec.ipFamilies.length === 2))) {
    spec.ipFamilyPolicy = 'RequireDualStack';
  }
  const families: string[] = Array.isArray(spec.ipFamilies) ? [...spec.ipFamilies] : [];
  for (let i = 0; i < ips.length && ips[i] !== 'None'; i++) if (i >= families.length && isIP(ips[i])) families.push(familyOf(ips[i]));
  if (spec.type === 'ClusterIP' && ips[0] === 'None' && !isObject(spec.selector)) {
    spec.ipFamilies = families.length > 0 ? families : ['IPv4'];
    if (unset(spec.ipFamilyPolicy)) spec.ipFamilyPolicy = 'RequireDualStack';
    return;
  }
  if (unset(spec.ipFamilyPolicy)) spec.ipFamilyPolicy = 'SingleStack';
  spec.ipFamilies = families.length > 0 ? families : ['IPv4'];
}

/**
 * The Service registry's update carry-over: a client that leaves out the
 * allocated clusterIP(s), IP families, node ports or health-check port keeps
 * the old ones (unless the type moves to or from ExternalName). Mutates `next`.
 */
export function patchServiceAllocatedValues(next: Service, old: Service): void {
  const spec = next?.spec;
  const oldSpec = old?.spec;
  if (!isObject(spec) || !isObject(oldSpec)) return;
  if (spec.type !== 'ExternalName' && oldSpec.type !== 'ExternalName') {
    if (!spec.clusterIP && !(Array.isArray(spec.clusterIPs) && spec.clusterIPs.length > 0)) {
      if (oldSpec.clusterIP) spec.clusterIP = oldSpec.clusterIP;
      if (Array.isArray(oldSpec.clusterIPs)) spec.clusterIPs = [...oldSpec.clusterIPs];
    }
    if (unset(spec.ipFamilyPolicy) && !unset(oldSpec.ipFamilyPolicy)) spec.ipFamilyPolicy = oldSpec.ipFamilyPolicy;
    if (!(Array.isArray(spec.ipFamilies) && spec.ipFamilies.length > 0) && Array.isArray(oldSpec.ipFamilies))
      spec.ipFamilies = [...oldSpec.ipFamilies];
  }
  const keepsNodePorts = (t: unknown) => t === 'NodePort' || t === 'LoadBalancer';
  if (keepsNodePorts(spec.type) && keepsNodePorts(oldSpec.type)) {
    for (const p of Array.isArray(spec.ports) ? spec.ports : []) {
      if (!isObject(p) || p.nodePort) continue;
      const match = (oldSpec.ports ?? []).find((o) => o?.port === p.port && (o?.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
      if (match?.nodePort) p.nodePort = match.nodePort;
    }
  }
  if (needsHealthCheck(next) && needsHealthCheck(old) && !spec.healthCheckNodePort && oldSpec.healthCheckNodePort) {
    spec.healthCheckNodePort = oldSpec.healthCheckNodePort;
  }
}

function goServicePortKey(protocol: unknown, port: unknown): string {
  return `core.ServicePort{Name:"", Protocol:${JSON.stringify(jsonText(protocol ?? ''))}, AppProtocol:(*string)(nil), Port:${Number(port ?? 0)}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`;
}

function validateServicePort(sp: ServicePort | undefined, requireName: boolean, names: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = String(sp?.name ?? '');
  if (requireName && !name) errs.push(fe.required(child(path, 'name')));
  else if (name) {
    errs.push(...dns1123Label(name, child(path, 'name')));
    if (names.has(name)) errs.push(fe.duplicate(child(path, 'name'), name));
    else names.add(name);
  }
  errs.push(...portNumProblems(sp?.port).map((m) => fe.invalid(child(path, 'port'), sp?.port ?? 0, m)));
  if (!sp?.protocol) errs.push(fe.required(child(path, 'protocol')));
  else if (!['SCTP', 'TCP', 'UDP'].includes(sp.protocol))
    errs.push(fe.notSupported(child(path, 'protocol'), sp.protocol, ['SCTP', 'TCP', 'UDP']));
  errs.push(...portNumOrName(sp?.targetPort, child(path, 'targetPort')));
  if (!unset(sp?.appProtocol)) errs.push(...qualifiedName(String(sp.appProtocol), child(path, 'appProtocol')));
  return errs;
}

function validateClusterIPFields(spec: ServiceSpec): FieldError[] {
  const errs: FieldError[] = [];
  const ips: string[] = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
  if (spec.type === 'ExternalName') return errs;
  if (spec.clusterIP && ips.length > 0 && ips[0] !== spec.clusterIP) {
    errs.push(fe.invalidShown('spec.clusterIPs', goStringSlice(ips), 'first value must match `clusterIP`'));
  }
  if (ips.length > 2) errs.push(fe.invalidShown('spec.clusterIPs', goStringSlice(ips), 'may only hold up to 2 values'));
  ips.forEach((ip, i) => {
    if (i === 0 && ip === 'None') return;
    if (ip === 'None') errs.push(fe.invalid(index('spec.clusterIPs', i), ip, 'may not be set to "None" for non-headless services'));
    else errs.push(...validIP(String(ip), index('spec.clusterIPs', i)));
  });
  const policy = spec.ipFamilyPolicy;
  if (!unset(policy) && !['SingleStack', 'PreferDualStack', 'RequireDualStack'].includes(policy)) {
    errs.push(fe.notSupported('spec.ipFamilyPolicy', policy, ['PreferDualStack', 'RequireDualStack', 'SingleStack']));
  }
  const fams: string[] = Array.isArray(spec.ipFamilies) ? spec.ipFamilies : [];
  const seen = new Set<string>();
  fams.forEach((f, i) => {
    if (f !== 'IPv4' && f !== 'IPv6') errs.push(fe.notSupported(index('spec.ipFamilies', i), f, ['IPv4', 'IPv6']));
    else if (seen.has(f)) errs.push(fe.duplicate(index('spec.ipFamilies', i), f));
    seen.add(f);
  });
  if (fams.length > 2)
    errs.push(
      fe.invalidShown(
        'spec.ipFamilies',
        `[]core.IPFamily{${fams.map((f) => JSON.stringify(f)).join(', ')}}`,
        'may only hold up to 2 values',
      ),
    );
  if (policy === 'SingleStack' && ips.length > 1) {
    errs.push(fe.invalidShown('spec.clusterIPs', goStringSlice(ips), "when `ipFamilyPolicy` is 'SingleStack' must hold only one value"));
  }
  if (policy === 'SingleStack' && fams.length > 1) {
    errs.push(
      fe.invalidShown(
        'spec.ipFamilies',
        `[]core.IPFamily{${fams.map((f) => JSON.stringify(f)).join(', ')}}`,
        "when `ipFamilyPolicy` is 'SingleStack' must hold only one value",
      ),
    );
  }
  return errs;
}

/** ValidateService, plus the node-port range the allocator enforces. */
export function validateServiceSpec(svc: Service): FieldError[] {
  const spec: ServiceSpec = svc.spec ?? {};
  const errs: FieldError[] = [];
  const ports = Array.isArray(spec.ports) ? spec.ports : [];
  if (ports.length === 0 && !isHeadless(svc) && spec.type !== 'ExternalName') errs.push(fe.required('spec.ports'));
  switch (spec.type) {
    case 'LoadBalancer':
    case 'NodePort':
      if (isHeadless(svc)) errs.push(fe.invalid('spec.clusterIPs[0]', 'None', `may not be set to 'None' for ${spec.type} services`));
      break;
    case 'ExternalName': {
      if (Array.isArray(spec.clusterIPs) && spec.clusterIPs.length > 0)
        errs.push(fe.forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
      if (Array.isArray(spec.ipFamilies) && spec.ipFamilies.length > 0)
        errs.push(fe.forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
      if (!unset(spec.ipFamilyPolicy)) errs.push(fe.forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
      const cname = String(spec.externalName ?? '').replace(/\.$/, '');
      if (cname) errs.push(...dns1123Subdomain(cname, 'spec.externalName'));
      else errs.push(fe.required('spec.externalName'));
      break;
    }
  }
  const names = new Set<string>();
  ports.forEach((p, i) => errs.push(...validateServicePort(p, ports.length > 1, names, index('spec.ports', i))));
  if (!unset(spec.selector)) errs.push(...validateLabels(spec.selector, 'spec.selector'));
  const sa = spec.sessionAffinity ?? '';
  if (!sa) errs.push(fe.required('spec.sessionAffinity'));
  else if (sa !== 'ClientIP' && sa !== 'None') errs.push(fe.notSupported('spec.sessionAffinity', sa, ['ClientIP', 'None']));
  if (sa === 'ClientIP') {
    const cfg = spec.sessionAffinityConfig;
    const p = 'spec.sessionAffinityConfig';
    if (!isObject(cfg)) errs.push(fe.required(p, 'when session affinity type is ClientIP'));
    else if (!isObject(cfg.clientIP)) errs.push(fe.required(`${p}.clientIP`, 'when session affinity type is ClientIP'));
    else if (unset(cfg.clientIP.timeoutSeconds))
      errs.push(fe.required(`${p}.clientIP.timeoutSeconds`, 'when session affinity type is ClientIP'));
    else if (cfg.clientIP.timeoutSeconds <= 0 || cfg.clientIP.timeoutSeconds > 86400) {
      errs.push(fe.invalid(`${p}.clientIP.timeoutSeconds`, cfg.clientIP.timeoutSeconds, 'must be greater than 0 and less than 86400'));
    }
  } else if (sa === 'None' && !unset(spec.sessionAffinityConfig)) {
    errs.push(fe.forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }
  // Defaults gave every Service a spec: validation never meets one without.
  errs.push(...validateClusterIPFields(spec));
  (Array.isArray(spec.externalIPs) ? spec.externalIPs : []).forEach((ip, i) =>
    errs.push(...validIP(String(ip), index('spec.externalIPs', i))),
  );
  const types = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
  if (!spec.type) errs.push(fe.required('spec.type'));
  else if (!types.includes(spec.type)) errs.push(fe.notSupported('spec.type', spec.type, types));
  if (spec.type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if (p?.nodePort) errs.push(fe.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (!p?.nodePort) return;
    const key = `${p.protocol}/${p.nodePort}`;
    if (nodePorts.has(key)) errs.push(fe.duplicate(`spec.ports[${i}].nodePort`, p.nodePort));
    nodePorts.add(key);
    if (spec.type !== 'ClusterIP' && (p.nodePort < NODE_PORT_RANGE.min || p.nodePort > NODE_PORT_RANGE.max)) {
      errs.push(
        fe.invalid(
          `spec.ports[${i}].nodePort`,
          p.nodePort,
          `provided port is not in the valid range. The range of valid ports is ${NODE_PORT_RANGE.min}-${NODE_PORT_RANGE.max}`,
        ),
      );
    }
  });
  const portKeys = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${p?.protocol}/${p?.port}`;
    if (portKeys.has(key)) errs.push(fe.duplicateShown(`spec.ports[${i}]`, goServicePortKey(p?.protocol, p?.port)));
    portKeys.add(key);
  });
  const ranges: unknown[] = Array.isArray(spec.loadBalancerSourceRanges) ? spec.loadBalancerSourceRanges : [];
  if (ranges.length > 0) {
    if (spec.type !== 'LoadBalancer')
      errs.push(fe.forbidden('spec.LoadBalancerSourceRanges', "may only be used when `type` is 'LoadBalancer'"));
    ranges.forEach((r, i) => errs.push(...validCIDR(String(r).trim(), index('spec.LoadBalancerSourceRanges', i))));
  }
  if (!unset(spec.allocateLoadBalancerNodePorts) && spec.type !== 'LoadBalancer') {
    errs.push(fe.forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  }
  if (spec.type === 'LoadBalancer' && unset(spec.allocateLoadBalancerNodePorts)) errs.push(fe.required('allocateLoadBalancerNodePorts'));
  if (!unset(spec.loadBalancerClass)) {
    if (spec.type !== 'LoadBalancer') errs.push(fe.forbidden('spec.loadBalancerClass', "may only be used when `type` is 'LoadBalancer'"));
    else errs.push(...qualifiedName(String(spec.loadBalancerClass), 'spec.loadBalancerClass'));
  }
  if (!externallyAccessible(svc)) {
    if (spec.externalTrafficPolicy)
      errs.push(fe.invalid('spec.externalTrafficPolicy', spec.externalTrafficPolicy, 'may only be set for externally-accessible services'));
  } else if (!spec.externalTrafficPolicy) {
    errs.push(fe.required('spec.externalTrafficPolicy'));
  } else if (!['Cluster', 'Local'].includes(spec.externalTrafficPolicy)) {
    errs.push(fe.notSupported('spec.externalTrafficPolicy', spec.externalTrafficPolicy, ['Cluster', 'Local']));
  }
  if (!needsHealthCheck(svc)) {
    if (spec.healthCheckNodePort) {
      errs.push(
        fe.invalid(
          'spec.healthCheckNodePort',
          spec.healthCheckNodePort,
          "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
        ),
      );
    }
  } else if (spec.healthCheckNodePort) {
    errs.push(...portNumProblems(spec.healthCheckNodePort).map((m) => fe.invalid('spec.healthCheckNodePort', spec.healthCheckNodePort, m)));
  }
  if (unset(spec.internalTrafficPolicy)) {
    if (['NodePort', 'LoadBalancer', 'ClusterIP'].includes(spec.type ?? '')) errs.push(fe.required('spec.internalTrafficPolicy'));
  } else if (!['Cluster', 'Local'].includes(spec.internalTrafficPolicy)) {
    errs.push(fe.notSupported('spec.internalTrafficPolicy', spec.internalTrafficPolicy, ['Cluster', 'Local']));
  }
  if (!unset(spec.trafficDistribution) && !['PreferClose', 'PreferSameZone', 'PreferSameNode'].includes(spec.trafficDistribution)) {
    errs.push(fe.notSupported('spec.trafficDistribution', spec.trafficDistribution, ['PreferClose', 'PreferSameZone', 'PreferSameNode']));
  }
  return errs;
}

function validateServiceUpdate(svc: Service, old: Service): FieldError[] {
  const errs: FieldError[] = [];
  const spec: ServiceSpec = svc.spec ?? {};
  const oldSpec: ServiceSpec = old.spec ?? {};
  if (spec.type !== 'ExternalName' && oldSpec.type !== 'ExternalName' && !(isHeadless(svc) && isHeadless(old))) {
    const n: string[] = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
    const o: string[] = Array.isArray(oldSpec.clusterIPs) ? oldSpec.clusterIPs : [];
    const shown = goStringSlice(spec.clusterIPs);
    if (o.length === n.length) {
      o.forEach((ip, i) => {
        if (ip !== n[i]) errs.push(fe.invalidShown(index('spec.clusterIPs', i), shown, 'may not change once set'));
      });
    } else if (o.length > n.length) {
      if (n.length === 0) errs.push(fe.invalidShown('spec.clusterIPs[0]', shown, 'primary clusterIP can not be unset'));
      if (o.length > 0 && n.length > 0 && n[0] !== o[0]) errs.push(fe.invalidShown('spec.clusterIPs[0]', shown, 'may not change once set'));
      if (n.length === 1 && spec.ipFamilyPolicy !== 'SingleStack') {
        errs.push(
          fe.invalidShown(
            'spec.clusterIPs[0]',
            shown,
            "`ipFamilyPolicy` must be set to 'SingleStack' when releasing the secondary clusterIP",
          ),
        );
      }
    } else if (o.length > 0 && n[0] !== o[0]) {
      errs.push(fe.invalidShown('spec.clusterIPs[0]', shown, 'may not change once set'));
    }
  }
  if (needsHealthCheck(old) && needsHealthCheck(svc) && spec.healthCheckNodePort !== oldSpec.healthCheckNodePort) {
    errs.push(fe.forbidden('spec.healthCheckNodePort', 'field is immutable'));
  }
  return errs;
}

/** ValidateServiceCreate, or ValidateServiceUpdate with `old`. */
export function validateService(svc: Service, old?: Service): FieldError[] {
  const errs = old ? validateServiceUpdate(svc, old) : [];
  errs.push(...validateServiceSpec(svc));
  return errs;
}
