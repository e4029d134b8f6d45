// The NetworkPolicy decision a policy-enforcing CNI makes for one connection
// (networking.k8s.io/v1 semantics, as the NetworkPolicy docs and kube's e2e
// suite describe them): a Pod is isolated for a direction only when some
// policy of its namespace selects it with that policyType; an isolated Pod
// accepts (or opens) a connection only when some rule of those policies
// matches the peer and the port; both the source's egress and the
// destination's ingress must allow it. Pure: the caller gives the policies,
// the peers' labels and their container ports.
import type { ContainerPort } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort } from 'kubernetes-types/networking/v1.js';
import { matchesLabels, selectorFromLabelSelector } from '../../../shared/labels/index.ts';

/** A Pod at one end of a connection. */
export interface PodEnd {
  namespace: string;
  labels: Record<string, string>;
  /** The labels of its namespace (kubernetes.io/metadata.name at least). */
  namespaceLabels: Record<string, string>;
  /** Its containers' ports, for named ports in rules. */
  ports: ContainerPort[];
}

/** One end of a connection: an address, and the Pod there if it is one. */
export interface Endpoint {
  ip: string;
  pod?: PodEnd;
}

/** A connection as the CNI sees it, after kube-proxy's DNAT (the destination is a Pod address and its port). */
export interface Connection {
  from: Endpoint;
  to: Endpoint;
  port: number;
  protocol: 'TCP' | 'UDP' | 'SCTP';
}

/** The verdict, and which side dropped the connection. */
export type Verdict = { allowed: true } | { allowed: false; by: 'egress' | 'ingress'; policies: string[] };

/** The policyTypes a policy has, defaulted as the apiserver defaults them. */
export function policyTypes(p: NetworkPolicy): string[] {
  const types = p.spec?.policyTypes;
  if (types && types.length) return types;
  return (p.spec?.egress?.length ?? 0) > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
}

/** The policies of a Pod's namespace that isolate it for one direction. */
export function isolating(pod: PodEnd, policies: NetworkPolicy[], type: 'Ingress' | 'Egress'): NetworkPolicy[] {
  return policies.filter(
    (p) =>
      (p.metadata?.namespace ?? '') === pod.namespace &&
      policyTypes(p).includes(type) &&
      matchesLabels(selectorFromLabelSelector(p.spec?.podSelector ?? {}), pod.labels),
  );
}

/** Parses dotted IPv4 to a number; undefined for anything else. */
function ipv4(ip: string): number | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((x) => x > 255)) return undefined;
  return ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3];
}

/** True when `ip` is inside `cidr` (IPv4). */
export function inCIDR(ip: string, cidr: string): boolean {
  const [base, bitsText] = cidr.split('/');
  const a = ipv4(ip);
  const b = ipv4(base ?? '');
  const bits = Number(bitsText ?? '32');
  if (a === undefined || b === undefined || !(bits >= 0 && bits <= 32)) return false;
  if (bits === 0) return true;
  const mask = (~0 << (32 - bits)) >>> 0;
  return (a & mask) >>> 0 === (b & mask) >>> 0;
}

/** Whether a rule's peer selects the other end; `ns` is the policy's namespace. */
export function peerMatches(peer: NetworkPolicyPeer, other: Endpoint, ns: string): boolean {
  if (peer.ipBlock) {
    const { cidr, except } = peer.ipBlock;
    return inCIDR(other.ip, cidr) && !(except ?? []).some((e) => inCIDR(other.ip, e));
  }
  const pod = other.pod;
  if (!pod) return false;
  if (peer.namespaceSelector) {
    if (!matchesLabels(selectorFromLabelSelector(peer.namespaceSelector), pod.namespaceLabels)) return false;
  } else if (pod.namespace !== ns) return false;
  return peer.podSelector ? matchesLabels(selectorFromLabelSelector(peer.podSelector), pod.labels) : true;
}

/** Whether a rule's port entry covers the destination port; a name is the destination Pod's container port. */
export function portMatches(p: NetworkPolicyPort, conn: Connection): boolean {
  if ((p.protocol ?? 'TCP') !== conn.protocol) return false;
  if (p.port === undefined || p.port === null) return true;
  if (typeof p.port === 'string') {
    const named = conn.to.pod?.ports.find((c) => c.name === p.port && (c.protocol ?? 'TCP') === conn.protocol);
    return named !== undefined && named.containerPort === conn.port;
  }
  const end = p.endPort ?? p.port;
  return conn.port >= p.port && conn.port <= end;
}

function ruleAllows(
  rule: { ports?: NetworkPolicyPort[]; peers?: NetworkPolicyPeer[] },
  other: Endpoint,
  conn: Connection,
  ns: string,
): boolean {
  const portOk = !rule.ports?.length || rule.ports.some((p) => portMatches(p, conn));
  const peerOk = !rule.peers?.length || rule.peers.some((peer) => peerMatches(peer, other, ns));
  return portOk && peerOk;
}

/** The CNI's decision for one connection under the cluster's policies. */
export function evaluate(conn: Connection, policies: NetworkPolicy[]): Verdict {
  const { from, to } = conn;
  // A Pod talking to itself is never policed (kube: a Pod cannot block access to itself).
  const samePod = from.pod && to.pod && from.ip === to.ip;
  if (from.pod && !samePod) {
    const egress = isolating(from.pod, policies, 'Egress');
    const ns = from.pod.namespace;
    if (egress.length && !egress.some((p) => (p.spec?.egress ?? []).some((r) => ruleAllows({ ports: r.ports, peers: r.to }, to, conn, ns))))
      return { allowed: false, by: 'egress', policies: egress.map((p) => p.metadata?.name ?? '') };
  }
  if (to.pod && !samePod) {
    const ingress = isolating(to.pod, policies, 'Ingress');
    const ns = to.pod.namespace;
    if (
      ingress.length &&
      !ingress.some((p) => (p.spec?.ingress ?? []).some((r) => ruleAllows({ ports: r.ports, peers: r.from }, from, conn, ns)))
    )
      return { allowed: false, by: 'ingress', policies: ingress.map((p) => p.metadata?.name ?? '') };
  }
  return { allowed: true };
}
