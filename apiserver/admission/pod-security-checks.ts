// The checks of kube's Pod Security Standards (k8s.io/pod-security-admission,
// policy/check_*.go) for the latest version: each looks at one pod spec and
// answers kube's forbidden reason and detail, or nothing. Pure functions.
import type { Container, PodSecurityContext, PodSpec, SecurityContext } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

export type Level = 'privileged' | 'baseline' | 'restricted';

/** One failed check. */
export interface CheckResult {
  reason: string;
  detail: string;
}

interface Check {
  id: string;
  level: 'baseline' | 'restricted';
  /** The baseline checks this one replaces at the restricted level. */
  overrides?: string[];
  run(meta: ObjectMeta, spec: PodSpec): CheckResult | undefined;
}

type Named = Container & { kind?: string };

const quote = (xs: Iterable<string | number>) => [...xs].map((x) => (typeof x === 'number' ? String(x) : JSON.stringify(x))).join(', ');
const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);
const containersWhere = (spec: PodSpec, bad: (c: Container) => boolean): string[] =>
  allContainers(spec)
    .filter(bad)
    .map((c) => c.name);
const containerPhrase = (names: string[]) => `${plural(names.length, 'container', 'containers')} ${quote(names)}`;

function allContainers(spec: PodSpec): Named[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...((spec.ephemeralContainers ?? []) as Named[])];
}

const sc = (c: Container): SecurityContext => c.securityContext ?? {};
const psc = (spec: PodSpec): PodSecurityContext => spec.securityContext ?? {};

const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
  'net.ipv4.tcp_rmem',
  'net.ipv4.tcp_wmem',
]);
const RESTRICTED_VOLUME_TYPES_ALLOWED = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'image',
  'persistentVolumeClaim',
  'projected',
  'secret',
]);
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);

const CHECKS: Check[] = [
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    run(_m, spec) {
      // Windows pods are not checked; ksim has none.
      const bad = allContainers(spec)
        .filter((c) => sc(c).allowPrivilegeEscalation !== false)
        .map((c) => c.name);
      if (!bad.length) return undefined;
      return {
        reason: 'allowPrivilegeEscalation != false',
        detail: `${containerPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`,
      };
    },
  },
  {
    id: 'appArmorProfile',
    level: 'baseline',
    run(meta, spec) {
      const bad: string[] = [];
      const badType = (t?: string) => t !== undefined && t !== 'RuntimeDefault' && t !== 'Localhost';
      if (badType(psc(spec).appArmorProfile?.type))
        bad.push(`pod must not set securityContext.appArmorProfile.type to ${quote([psc(spec).appArmorProfile!.type])}`);
      const names = containersWhere(spec, (c) => badType(sc(c).appArmorProfile?.type));
      if (names.length) bad.push(`${containerPhrase(names)} must not set securityContext.appArmorProfile.type to "Unconfined"`);
      for (const [k, v] of Object.entries(meta.annotations ?? {})) {
        if (k.startsWith('container.apparmor.security.beta.kubernetes.io/') && v !== 'runtime/default' && !v.startsWith('localhost/'))
          bad.push(`${k}=${quote([v])}`);
      }
      if (!bad.length) return undefined;
      return { reason: plural(bad.length, 'forbidden AppArmor profile', 'forbidden AppArmor profiles'), detail: bad.join(', ') };
    },
  },
  {
    id: 'capabilities_baseline',
    level: 'baseline',
    run(_m, spec) {
      const names: string[] = [];
      const caps = new Set<string>();
      for (const c of allContainers(spec)) {
        const extra = (sc(c).capabilities?.add ?? []).filter((x) => !BASELINE_CAPABILITIES.has(x));
        if (extra.length) names.push(c.name);
        for (const x of extra) caps.add(x);
      }
      if (!names.length) return undefined;
      return {
        reason: 'non-default capabilities',
        detail: `${containerPhrase(names)} must not include ${quote([...caps].sort())} in securityContext.capabilities.add`,
      };
    },
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    overrides: ['capabilities_baseline'],
    run(_m, spec) {
      const noDrop: string[] = [];
      const badAdd: string[] = [];
      const caps = new Set<string>();
      for (const c of allContainers(spec)) {
        const cap = sc(c).capabilities;
        if (!(cap?.drop ?? []).includes('ALL')) noDrop.push(c.name);
        const extra = (cap?.add ?? []).filter((x) => x !== 'NET_BIND_SERVICE');
        if (extra.length) badAdd.push(c.name);
        for (const x of extra) caps.add(x);
      }
      const details: string[] = [];
      if (noDrop.length) details.push(`${containerPhrase(noDrop)} must set securityContext.capabilities.drop=["ALL"]`);
      if (badAdd.length)
        details.push(`${containerPhrase(badAdd)} must not include ${quote([...caps].sort())} in securityContext.capabilities.add`);
      return details.length ? { reason: 'unrestricted capabilities', detail: details.join('; ') } : undefined;
    },
  },
  {
    id: 'hostNamespaces',
    level: 'baseline',
    run(_m, spec) {
      const set = [spec.hostNetwork && 'hostNetwork=true', spec.hostPID && 'hostPID=true', spec.hostIPC && 'hostIPC=true'].filter(Boolean);
      return set.length ? { reason: 'host namespaces', detail: set.join(', ') } : undefined;
    },
  },
  {
    id: 'hostPathVolumes',
    level: 'baseline',
    run(_m, spec) {
      const names = (spec.volumes ?? []).filter((v) => v.hostPath).map((v) => v.name);
      return names.length
        ? { reason: 'hostPath volumes', detail: `${plural(names.length, 'volume', 'volumes')} ${quote(names)}` }
        : undefined;
    },
  },
  {
    id: 'hostPorts',
    level: 'baseline',
    run(_m, spec) {
      const names: string[] = [];
      const ports = new Set<number>();
      for (const c of allContainers(spec)) {
        const hp = (c.ports ?? []).map((p) => p.hostPort ?? 0).filter((p) => p !== 0);
        if (hp.length) names.push(c.name);
        for (const p of hp) ports.add(p);
      }
      if (!names.length) return undefined;
      const verb = plural(names.length, 'uses', 'use');
      return {
        reason: 'hostPort',
        detail: `${containerPhrase(names)} ${verb} ${plural(ports.size, 'hostPort', 'hostPorts')} ${[...ports].join(', ')}`,
      };
    },
  },
  {
    id: 'privileged',
    level: 'baseline',
    run(_m, spec) {
      const names = containersWhere(spec, (c) => sc(c).privileged === true);
      return names.length
        ? { reason: 'privileged', detail: `${containerPhrase(names)} must not set securityContext.privileged=true` }
        : undefined;
    },
  },
  {
    id: 'procMount',
    level: 'baseline',
    run(_m, spec) {
      const names = containersWhere(spec, (c) => sc(c).procMount !== undefined && sc(c).procMount !== 'Default');
      if (!names.length) return undefined;
      return { reason: 'procMount', detail: `${containerPhrase(names)} must not set securityContext.procMount to "Unmasked"` };
    },
  },
  {
    id: 'runAsNonRoot',
    level: 'restricted',
    run(_m, spec) {
      const details: string[] = [];
      const podValue = psc(spec).runAsNonRoot;
      if (podValue === false) details.push('pod must not set securityContext.runAsNonRoot=false');
      const explicitFalse = containersWhere(spec, (c) => sc(c).runAsNonRoot === false);
      if (explicitFalse.length) details.push(`${containerPhrase(explicitFalse)} must not set securityContext.runAsNonRoot=false`);
      if (podValue !== true) {
        const unset = containersWhere(spec, (c) => sc(c).runAsNonRoot === undefined || sc(c).runAsNonRoot === null);
        if (unset.length) details.push(`pod or ${containerPhrase(unset)} must set securityContext.runAsNonRoot=true`);
      }
      return details.length ? { reason: 'runAsNonRoot != true', detail: details.join('; ') } : undefined;
    },
  },
  {
    id: 'runAsUser',
    level: 'restricted',
    run(_m, spec) {
      const details: string[] = [];
      if (psc(spec).runAsUser === 0) details.push('pod must not set runAsUser=0');
      const names = containersWhere(spec, (c) => sc(c).runAsUser === 0);
      if (names.length) details.push(`${containerPhrase(names)} must not set runAsUser=0`);
      return details.length ? { reason: 'runAsUser=0', detail: details.join('; ') } : undefined;
    },
  },
  {
    id: 'seLinuxOptions',
    level: 'baseline',
    run(_m, spec) {
      const bad = (o?: { type?: string; user?: string; role?: string }) =>
        !!o && (!SELINUX_TYPES.has(o.type ?? '') || !!o.user || !!o.role);
      const names = containersWhere(spec, (c) => bad(sc(c).seLinuxOptions));
      const pod = bad(psc(spec).seLinuxOptions);
      if (!pod && !names.length) return undefined;
      const all = [psc(spec).seLinuxOptions, ...allContainers(spec).map((c) => sc(c).seLinuxOptions)].filter(bad);
      const types = new Set(all.map((o) => o!.type ?? '').filter((t) => !SELINUX_TYPES.has(t)));
      const users = new Set(all.map((o) => o!.user ?? '').filter(Boolean));
      const roles = new Set(all.map((o) => o!.role ?? '').filter(Boolean));
      const what: string[] = [];
      if (types.size) what.push(`${plural(types.size, 'type', 'types')} ${quote(types)}`);
      if (users.size) what.push(`${plural(users.size, 'user', 'users')} ${quote(users)}`);
      if (roles.size) what.push(`${plural(roles.size, 'role', 'roles')} ${quote(roles)}`);
      const who = pod && names.length ? `pod and ${containerPhrase(names)}` : pod ? 'pod' : containerPhrase(names);
      return { reason: 'seLinuxOptions', detail: `${who} set forbidden securityContext.seLinuxOptions: ${what.join('; ')}` };
    },
  },
  {
    id: 'seccompProfile_baseline',
    level: 'baseline',
    run(_m, spec) {
      const details: string[] = [];
      if (psc(spec).seccompProfile?.type === 'Unconfined')
        details.push('pod must not set securityContext.seccompProfile.type to "Unconfined"');
      const names = containersWhere(spec, (c) => sc(c).seccompProfile?.type === 'Unconfined');
      if (names.length) details.push(`${containerPhrase(names)} must not set securityContext.seccompProfile.type to "Unconfined"`);
      return details.length ? { reason: 'seccompProfile', detail: details.join('; ') } : undefined;
    },
  },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    overrides: ['seccompProfile_baseline'],
    run(_m, spec) {
      const ok = (t?: string) => t === 'RuntimeDefault' || t === 'Localhost';
      const details: string[] = [];
      const podType = psc(spec).seccompProfile?.type;
      if (podType !== undefined && !ok(podType))
        details.push(`pod must not set securityContext.seccompProfile.type to ${quote([podType])}`);
      const badSet = allContainers(spec).filter((c) => sc(c).seccompProfile?.type !== undefined && !ok(sc(c).seccompProfile?.type));
      const types = new Set(badSet.map((c) => sc(c).seccompProfile!.type));
      if (badSet.length)
        details.push(`${containerPhrase(badSet.map((c) => c.name))} must not set securityContext.seccompProfile.type to ${quote(types)}`);
      if (!ok(podType)) {
        const unset = containersWhere(spec, (c) => sc(c).seccompProfile?.type === undefined);
        if (unset.length)
          details.push(`pod or ${containerPhrase(unset)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`);
      }
      return details.length ? { reason: 'seccompProfile', detail: details.join('; ') } : undefined;
    },
  },
  {
    id: 'sysctls',
    level: 'baseline',
    run(_m, spec) {
      const bad = (psc(spec).sysctls ?? []).map((s) => s.name).filter((n) => !SAFE_SYSCTLS.has(n));
      return bad.length ? { reason: 'forbidden sysctls', detail: bad.join(', ') } : undefined;
    },
  },
  {
    id: 'volumeTypes',
    level: 'restricted',
    overrides: ['hostPathVolumes'],
    run(_m, spec) {
      const names: string[] = [];
      const types = new Set<string>();
      for (const v of spec.volumes ?? []) {
        const type = Object.keys(v).find((k) => k !== 'name');
        if (type && !RESTRICTED_VOLUME_TYPES_ALLOWED.has(type)) {
          names.push(v.name);
          types.add(type);
        }
      }
      if (!names.length) return undefined;
      return {
        reason: 'restricted volume types',
        detail: `${plural(names.length, 'volume', 'volumes')} ${quote(names)} ${plural(names.length, 'uses', 'use')} ${plural(types.size, 'restricted volume type', 'restricted volume types')} ${quote(types)}`,
      };
    },
  },
  {
    id: 'windowsHostProcess',
    level: 'baseline',
    run(_m, spec) {
      const pod = psc(spec).windowsOptions?.hostProcess === true;
      const names = containersWhere(spec, (c) => sc(c).windowsOptions?.hostProcess === true);
      if (!pod && !names.length) return undefined;
      const who = pod && names.length ? `pod and ${containerPhrase(names)}` : pod ? 'pod' : containerPhrase(names);
      return { reason: 'hostProcess', detail: `${who} must not set securityContext.windowsOptions.hostProcess=true` };
    },
  },
];

/** The checks of `level`, in kube's order (by check ID). */
function checksFor(level: Level): Check[] {
  if (level === 'privileged') return [];
  const picked = CHECKS.filter((c) => c.level === 'baseline' || level === 'restricted');
  const overridden = new Set(picked.flatMap((c) => c.overrides ?? []));
  return picked.filter((c) => !overridden.has(c.id)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Every check of `level` the pod fails. */
export function evaluatePod(level: Level, meta: ObjectMeta, spec: PodSpec): CheckResult[] {
  const out: CheckResult[] = [];
  for (const c of checksFor(level)) {
    const r = c.run(meta, spec);
    if (r) out.push(r);
  }
  return out;
}

/** `reason (detail), reason (detail)`: how kube lists the failures. */
export function describeFailures(results: CheckResult[]): string {
  return results.map((r) => (r.detail ? `${r.reason} (${r.detail})` : r.reason)).join(', ');
}
