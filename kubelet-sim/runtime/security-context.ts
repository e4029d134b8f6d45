// A container's securityContext as kubelet and containerd apply it: the
// effective settings (the container's over the Pod's), the user the process
// runs as (runAsUser, runAsGroup, supplementalGroups and fsGroup, else the
// image's USER), kubelet's runAsNonRoot check with its exact messages, and a
// root filesystem that refuses writes under readOnlyRootFilesystem.
import type { Container, Pod, PodSecurityContext, SecurityContext } from 'kubernetes-types/core/v1.js';
import { SimFs, normalizePath, type Volume } from './filesystem.ts';

/** Who a container's processes run as (what `id` prints). */
export interface ContainerUser {
  uid: number;
  gid: number;
  /** The supplementary groups, sorted as the kernel keeps them. */
  groups: number[];
}

/** The settings that apply to one container: its own, else the Pod's (kube's DetermineEffectiveSecurityContext). */
export function effectiveSecurityContext(
  pod: Pod,
  c: Container,
): SecurityContext & Pick<PodSecurityContext, 'fsGroup' | 'supplementalGroups'> {
  const p = pod.spec?.securityContext ?? {};
  const s = c.securityContext ?? {};
  return {
    ...s,
    runAsUser: s.runAsUser ?? p.runAsUser,
    runAsGroup: s.runAsGroup ?? p.runAsGroup,
    runAsNonRoot: s.runAsNonRoot ?? p.runAsNonRoot,
    fsGroup: p.fsGroup,
    supplementalGroups: p.supplementalGroups,
  };
}

/**
 * The users the images' /etc/passwd name (uid, gid): an image whose USER is a
 * name runs as that account's ids.
 */
const IMAGE_ACCOUNTS: Record<string, [number, number]> = {
  root: [0, 0],
  nginx: [101, 101],
  redis: [999, 999],
  memcache: [11211, 11211],
  nobody: [65534, 65534],
  curl_user: [100, 101],
  haproxy: [99, 99],
  jenkins: [1000, 1000],
  app: [1000, 1000],
  node: [1000, 1000],
  postgres: [999, 999],
  mysql: [999, 999],
};

/** An image's USER ("", "1000", "1000:1000", "nginx") as containerd resolves it; a name outside the table is 1000. */
export function imageUser(user: string | undefined): { uid?: number; gid: number; name?: string } {
  if (!user) return { uid: 0, gid: 0 };
  const [u, g] = user.split(':');
  const numeric = /^\d+$/.test(u);
  const account = numeric ? undefined : (IMAGE_ACCOUNTS[u] ?? [1000, 1000]);
  const gid = g !== undefined && /^\d+$/.test(g) ? Number(g) : (account?.[1] ?? 0);
  return numeric ? { uid: Number(u), gid } : { uid: undefined, gid, name: u };
}

/** The process's user: the securityContext's ids over the image's, plus fsGroup and supplementalGroups. */
export function containerUser(pod: Pod, c: Container, imageUserSpec: string | undefined): ContainerUser {
  const sc = effectiveSecurityContext(pod, c);
  const img = imageUser(imageUserSpec);
  const imgUid = img.uid ?? IMAGE_ACCOUNTS[img.name ?? '']?.[0] ?? 1000;
  const uid = sc.runAsUser ?? imgUid;
  // A runAsUser the image's /etc/passwd does not know keeps group 0, as containerd does.
  const gid = sc.runAsGroup ?? (sc.runAsUser !== undefined && sc.runAsUser !== imgUid ? 0 : img.gid);
  const groups = new Set<number>([gid]);
  // root is in wheel in busybox's and alpine's /etc/group.
  if (uid === 0 && sc.runAsGroup === undefined) groups.add(10);
  for (const g of sc.supplementalGroups ?? []) groups.add(g);
  if (sc.fsGroup !== undefined && sc.fsGroup !== null) groups.add(sc.fsGroup);
  return { uid, gid, groups: [...groups].sort((a, b) => a - b) };
}

/** kube's format.Pod: name_namespace(uid). */
export function formatPod(pod: Pod): string {
  const m = pod.metadata ?? {};
  return `${m.name}_${m.namespace}(${m.uid})`;
}

/** kubelet's verifyRunAsNonRoot: the reason a container may not start, or undefined. */
export function runAsNonRootError(pod: Pod, c: Container, imageUserSpec: string | undefined): string | undefined {
  const sc = effectiveSecurityContext(pod, c);
  if (!sc.runAsNonRoot) return undefined;
  const where = `(pod: ${JSON.stringify(formatPod(pod))}, container: ${c.name})`;
  if (sc.runAsUser !== undefined && sc.runAsUser !== null)
    return sc.runAsUser === 0 ? `container's runAsUser breaks non-root policy ${where}` : undefined;
  const img = imageUser(imageUserSpec);
  if (img.uid === undefined)
    return `container has runAsNonRoot and image has non-numeric user (${img.name}), cannot verify user is non-root ${where}`;
  if (img.uid === 0) return `container has runAsNonRoot and image will run as root ${where}`;
  return undefined;
}

/** A container filesystem whose root refuses writes (readOnlyRootFilesystem); its volumes stay writable. */
export class ReadOnlyRootFs extends SimFs {
  private sealed = false;
  private readonly mountPaths: string[] = [];

  /** Called once the image's and kubelet's files are in place: from then on the root is read-only. */
  seal(): this {
    this.sealed = true;
    return this;
  }

  override mount(path: string, volume: Volume, opts?: { subPath?: string; readOnly?: boolean }): void {
    this.mountPaths.push(normalizePath(path));
    super.mount(path, volume, opts);
  }

  private onRoot(p: string): boolean {
    if (!this.sealed) return false;
    const abs = normalizePath(p, this.cwd);
    return !this.mountPaths.some((m) => abs === m || abs.startsWith(m === '/' ? '/' : m + '/'));
  }

  override write(p: string, content: string): string | undefined {
    return this.onRoot(p) ? 'Read-only file system' : super.write(p, content);
  }

  override append(p: string, content: string): void {
    if (!this.onRoot(p)) super.append(p, content);
  }

  override remove(p: string): boolean {
    return !this.onRoot(p) && super.remove(p);
  }

  override mkdir(p: string): void {
    if (!this.onRoot(p)) super.mkdir(p);
  }
}
