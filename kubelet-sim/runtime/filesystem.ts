// A simulated container filesystem: a root of plain files plus volumes
// mounted at paths (ConfigMap, Secret, emptyDir, downwardAPI, projected,
// hostPath, PersistentVolumeClaims). A volume is a shared Volume object, so
// two containers mounting one emptyDir see each other's writes, and a
// ConfigMap update shows up in every mount. Data that outlives a Pod lives in
// a VolumeStore: a claim's data is its PersistentVolume's (by PV name; a
// hostPath or local PV's is that directory of the node), a hostPath volume's
// is the node's directory, and an emptyDir is gone with its Pod.
//
// Every file and directory has an owner, a group and permission bits, as
// `ls -l` shows them: a process creates files as its own uid and gid (the
// directory's group in a setgid directory, as Linux does), an emptyDir is
// created 0777, and a Pod's fsGroup is applied to the volumes that support
// ownership management as kubelet's SetVolumeOwnership applies it (group
// fsGroup, group read/write, setgid directories). Permissions are shown and
// stored (chmod, chown), not enforced.
import type { PersistentVolume, PersistentVolumeClaim, Pod, Volume as PodVolume } from 'kubernetes-types/core/v1.js';

/** The owner, group and mode bits (permissions with setuid, setgid and sticky) of a file or directory. */
export interface FileAttrs {
  uid: number;
  gid: number;
  mode: number;
}

export const SETGID = 0o2000;
const FILE_MODE = 0o644;
const DIR_MODE = 0o755;

/** A volume's files, keyed by path relative to its mount point. */
export class Volume {
  readonly files = new Map<string, string>();
  readonly dirs = new Set<string>();
  /** Owners and modes by relative path ('' is the volume's own directory); absent: root's, 0644 or 0755. */
  readonly attrs = new Map<string, FileAttrs>();
  constructor(
    readonly name: string,
    readonly readOnly = false,
  ) {}

  /** Replaces every file (a ConfigMap or Secret changed); the files that stay keep their owners and modes. */
  replace(files: Record<string, string>): void {
    this.files.clear();
    for (const [k, v] of Object.entries(files)) this.files.set(k, v);
    for (const k of this.attrs.keys()) if (k !== '' && !this.files.has(k) && !this.dirs.has(k)) this.attrs.delete(k);
  }

  /** The attributes of `rel`, a file (dir false) or a directory. */
  attrsOf(rel: string, dir: boolean): FileAttrs {
    return this.attrs.get(rel) ?? { uid: 0, gid: 0, mode: dir ? DIR_MODE : FILE_MODE };
  }

  /**
   * kubelet's SetVolumeOwnership for fsGroup: everything in the volume gets
   * group `fsGroup` and group read/write (read only for a read-only
   * volume), directories also group search and the setgid bit, so what is
   * created in them later keeps the group.
   */
  applyFsGroup(fsGroup: number): void {
    const mask = this.readOnly ? 0o440 : 0o660;
    const dirs = new Set<string>(['', ...this.dirs]);
    for (const f of this.files.keys()) {
      const parts = f.split('/');
      for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
    }
    for (const f of this.files.keys()) {
      const a = this.attrsOf(f, false);
      this.attrs.set(f, { uid: a.uid, gid: fsGroup, mode: a.mode | mask });
    }
    for (const d of dirs) {
      const a = this.attrsOf(d, true);
      this.attrs.set(d, { uid: a.uid, gid: fsGroup, mode: a.mode | mask | 0o110 | SETGID });
    }
  }
}

/** An emptyDir: kubelet creates its directory world-writable (0777). */
export function emptyDirVolume(name: string): Volume {
  const v = new Volume(name);
  v.attrs.set('', { uid: 0, gid: 0, mode: 0o777 });
  return v;
}

/** A Pod's own volume (one not kept in the node's VolumeStore): an emptyDir, or a read-only projection of API objects. */
export function podOwnVolume(v: PodVolume): Volume {
  if (v.emptyDir) return emptyDirVolume(v.name);
  return new Volume(v.name, !!(v.configMap || v.secret || v.downwardAPI || v.projected));
}

/** Applies the Pod's fsGroup to a volume as kubelet does: to every kind that supports ownership management (not hostPath). */
export function applyPodFsGroup(pod: Pod, v: PodVolume, vol: Volume): void {
  const fsGroup = pod.spec?.securityContext?.fsGroup;
  if (fsGroup === undefined || fsGroup === null || v.hostPath) return;
  vol.applyFsGroup(fsGroup);
}

interface Mount {
  path: string;
  volume: Volume;
  subPath?: string;
  readOnly: boolean;
}

/** Normalizes a path: absolute, no `.`/`..`, no trailing slash. */
export function normalizePath(p: string, cwd = '/'): string {
  const parts: string[] = [];
  for (const seg of (p.startsWith('/') ? p : `${cwd}/${p}`).split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return '/' + parts.join('/');
}

/** One container's view of files. */
export class SimFs {
  private readonly root = new Volume('/');
  private readonly mounts: Mount[] = [];
  cwd = '/';
  /** Whom new files and directories belong to: the container's user (root until the runtime says). */
  owner: { uid: number; gid: number } = { uid: 0, gid: 0 };

  constructor(files: Record<string, string> = {}) {
    for (const d of ['bin', 'dev', 'etc', 'home', 'proc', 'root', 'sys', 'tmp', 'usr', 'var']) this.root.dirs.add(d);
    this.root.attrs.set('tmp', { uid: 0, gid: 0, mode: 0o1777 });
    this.root.attrs.set('root', { uid: 0, gid: 0, mode: 0o700 });
    for (const [k, v] of Object.entries(files)) this.write(k, v);
  }

  /** What a new entry in `p`'s directory gets: the owner's ids, the directory's group when it is setgid. */
  private newAttrs(p: string, dir: boolean): FileAttrs {
    const abs = normalizePath(p, this.cwd);
    const parent = this.stat(abs.slice(0, abs.lastIndexOf('/')) || '/');
    const inherit = !!parent && (parent.mode & SETGID) !== 0;
    return {
      uid: this.owner.uid,
      gid: inherit ? parent.gid : this.owner.gid,
      mode: dir ? DIR_MODE | (inherit ? SETGID : 0) : FILE_MODE,
    };
  }

  /** Owner, group, mode and kind of a file or directory, or undefined when there is none. */
  stat(p: string): (FileAttrs & { dir: boolean }) | undefined {
    const { vol, rel } = this.resolve(p);
    if (vol.files.has(rel)) return { ...vol.attrsOf(rel, false), dir: false };
    if (!this.isDir(p)) return undefined;
    return { ...vol.attrsOf(rel, true), dir: true };
  }

  /** chmod: sets the mode bits; false when there is no such entry or it is read-only. */
  chmod(p: string, mode: number): boolean {
    const st = this.stat(p);
    const { vol, rel, readOnly } = this.resolve(p);
    if (!st || readOnly) return false;
    vol.attrs.set(rel, { uid: st.uid, gid: st.gid, mode: mode & 0o7777 });
    return true;
  }

  /** chown: sets the owner and/or group; false when there is no such entry or it is read-only. */
  chown(p: string, uid: number | undefined, gid: number | undefined): boolean {
    const st = this.stat(p);
    const { vol, rel, readOnly } = this.resolve(p);
    if (!st || readOnly) return false;
    vol.attrs.set(rel, { uid: uid ?? st.uid, gid: gid ?? st.gid, mode: st.mode });
    return true;
  }

  /** Mounts `volume` at `path` (longest mount path wins on lookup). */
  mount(path: string, volume: Volume, opts: { subPath?: string; readOnly?: boolean } = {}): void {
    this.mounts.push({ path: normalizePath(path), volume, subPath: opts.subPath, readOnly: opts.readOnly ?? volume.readOnly });
    this.mounts.sort((a, b) => b.path.length - a.path.length);
  }

  private resolve(p: string): { vol: Volume; rel: string; readOnly: boolean } {
    const abs = normalizePath(p, this.cwd);
    for (const m of this.mounts) {
      if (abs === m.path || abs.startsWith(m.path + '/')) {
        let rel = abs.slice(m.path.length + 1);
        if (m.subPath) rel = rel ? `${m.subPath}/${rel}` : m.subPath;
        return { vol: m.volume, rel, readOnly: m.readOnly };
      }
    }
    return { vol: this.root, rel: abs.slice(1), readOnly: false };
  }

  /** A file's content, or undefined when there is no such file. */
  read(p: string): string | undefined {
    const { vol, rel } = this.resolve(p);
    return vol.files.get(rel);
  }

  /** Creates or overwrites a file; returns an error text, or undefined on success. */
  write(p: string, content: string): string | undefined {
    const { vol, rel, readOnly } = this.resolve(p);
    if (readOnly) return 'Read-only file system';
    if (rel === '' || this.isDir(p)) return 'Is a directory';
    if (!vol.files.has(rel)) vol.attrs.set(rel, this.newAttrs(p, false));
    vol.files.set(rel, content);
    return undefined;
  }

  /** Appends to a file, creating it. */
  append(p: string, content: string): void {
    const { vol, rel, readOnly } = this.resolve(p);
    if (readOnly) return;
    if (!vol.files.has(rel)) vol.attrs.set(rel, this.newAttrs(p, false));
    vol.files.set(rel, (vol.files.get(rel) ?? '') + content);
  }

  /** Removes a file; false when it did not exist (or is read-only). */
  remove(p: string): boolean {
    const { vol, rel, readOnly } = this.resolve(p);
    if (readOnly || !vol.files.delete(rel)) return false;
    vol.attrs.delete(rel);
    return true;
  }

  mkdir(p: string): void {
    const { vol, rel } = this.resolve(p);
    if (!rel || vol.dirs.has(rel)) return;
    if (!this.isDir(p)) vol.attrs.set(rel, this.newAttrs(p, true));
    vol.dirs.add(rel);
  }

  /** True for a directory: a mount point, an explicit directory, or a prefix of some file. */
  isDir(p: string): boolean {
    return this.list(p) !== undefined;
  }

  /** The names directly inside directory `p`, sorted, or undefined when it is not a directory. */
  list(p: string): string[] | undefined {
    const abs = normalizePath(p, this.cwd);
    const { vol, rel } = this.resolve(abs);
    const names = new Set<string>();
    const prefix = rel ? rel + '/' : '';
    let isDir = rel === '' || vol.dirs.has(rel);
    for (const f of [...vol.files.keys(), ...vol.dirs]) {
      if (!f.startsWith(prefix) || f === rel) continue;
      isDir = true;
      names.add(f.slice(prefix.length).split('/')[0]);
    }
    for (const m of this.mounts) {
      const parent = m.path.slice(0, m.path.lastIndexOf('/')) || '/';
      if (parent === abs) {
        names.add(m.path.slice(parent.length + (parent === '/' ? 0 : 1)));
        isDir = true;
      }
      if (m.path === abs) isDir = true;
    }
    if (!isDir) return undefined;
    return [...names].filter((n) => n !== '').sort();
  }
}

/**
 * A volume whose contents are data, not a projection of API objects: a
 * refresh of projected sources (replace) leaves it as it is.
 */
export class DataVolume extends Volume {
  override replace(_files: Record<string, string>): void {}
}

/** The data that outlives Pods in one kubelet-sim process: volumes by PV name, and each node's host directories. */
export class VolumeStore {
  private readonly byKey = new Map<string, DataVolume>();

  private get(key: string, name: string): DataVolume {
    let v = this.byKey.get(key);
    if (!v) this.byKey.set(key, (v = new DataVolume(name)));
    return v;
  }

  /** The data of PersistentVolume `pv` (storage reachable from any node it may be mounted on). */
  persistent(pv: string): DataVolume {
    return this.get(`pv\u0000${pv}`, pv);
  }

  /** Directory `path` of node `node`. */
  hostPath(node: string, path: string): DataVolume {
    const p = normalizePath(path);
    return this.get(`host\u0000${node}\u0000${p}`, p);
  }

  /**
   * Forgets a deleted PersistentVolume's data: what was stored by its name,
   * and for a volume local-path provisioned, its directory on the node (the
   * provisioner removes it when it deletes the volume).
   */
  release(pv: PersistentVolume): void {
    this.byKey.delete(`pv\u0000${pv.metadata?.name}`);
    const node = pv.metadata?.annotations?.['local.path.provisioner/selected-node'];
    const path = pv.spec?.hostPath?.path;
    if (node && path) this.byKey.delete(`host\u0000${node}\u0000${normalizePath(path)}`);
  }
}

/** Where the claims and volumes a node's Pods mount are read from (kubelet-sim's caches or API reads). */
export interface ClaimLookup {
  claim(namespace: string, name: string): PersistentVolumeClaim | undefined;
  /** The PersistentVolume, when the node may read it; without it the data is keyed by the PV name alone. */
  volume?(name: string): PersistentVolume | undefined;
}

/** The answer for a Pod volume: its shared data, nothing to share (the worker builds it), or why it cannot mount yet. */
export type ResolvedVolume = { volume: Volume } | { wait: string } | undefined;

/** The claim a Pod volume uses: persistentVolumeClaim, or a generic ephemeral volume's POD-VOLUME claim. */
export function claimNameOf(pod: Pod, v: PodVolume): string | undefined {
  if (v.persistentVolumeClaim?.claimName) return v.persistentVolumeClaim.claimName;
  if (v.ephemeral) return `${pod.metadata?.name}-${v.name}`;
  return undefined;
}

/** One node's view of the store: which shared Volume a Pod's volume mounts. */
export class NodeVolumes {
  constructor(
    private readonly store: VolumeStore,
    readonly node: string,
    private readonly lookup: ClaimLookup,
  ) {}

  /**
   * The data behind `v` of `pod`. hostPath: the node's directory. A claim:
   * once bound, its PersistentVolume's data (a hostPath or local PV: that
   * directory of this node); unbound or missing, a reason to wait, as the
   * kubelet waits to mount it. Every other kind (emptyDir, ConfigMap...):
   * undefined, the worker's own per-Pod volume.
   */
  resolve(pod: Pod, v: PodVolume): ResolvedVolume {
    if (v.hostPath?.path) return { volume: this.store.hostPath(this.node, v.hostPath.path) };
    const claimName = claimNameOf(pod, v);
    if (!claimName) return undefined;
    const ns = pod.metadata?.namespace ?? 'default';
    const claim = this.lookup.claim(ns, claimName);
    if (!claim) return { wait: `persistentvolumeclaim "${claimName}" not found` };
    const pvName = claim.spec?.volumeName;
    if (!pvName || claim.status?.phase !== 'Bound') return { wait: `PersistentVolumeClaim "${claimName}" is not bound` };
    const pv = this.lookup.volume?.(pvName);
    const local = pv?.spec?.hostPath?.path ?? pv?.spec?.local?.path;
    return { volume: local ? this.store.hostPath(this.node, local) : this.store.persistent(pvName) };
  }
}
