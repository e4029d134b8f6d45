// A simulated container filesystem: a root of plain files plus volumes
// mounted at paths (ConfigMap, Secret, emptyDir, downwardAPI, projected).
// A volume is a shared Volume object, so two containers mounting one emptyDir
// see each other's writes, and a ConfigMap update shows up in every mount.

/** A volume's files, keyed by path relative to its mount point. */
export class Volume {
  readonly files = new Map<string, string>();
  readonly dirs = new Set<string>();
  constructor(
    readonly name: string,
    readonly readOnly = false,
  ) {}

  /** Replaces every file (a ConfigMap or Secret changed). */
  replace(files: Record<string, string>): void {
    this.files.clear();
    for (const [k, v] of Object.entries(files)) this.files.set(k, v);
  }
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

  constructor(files: Record<string, string> = {}) {
    for (const d of ['bin', 'dev', 'etc', 'home', 'proc', 'root', 'sys', 'tmp', 'usr', 'var']) this.root.dirs.add(d);
    for (const [k, v] of Object.entries(files)) this.write(k, v);
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
    vol.files.set(rel, content);
    return undefined;
  }

  /** Appends to a file, creating it. */
  append(p: string, content: string): void {
    const { vol, rel, readOnly } = this.resolve(p);
    if (readOnly) return;
    vol.files.set(rel, (vol.files.get(rel) ?? '') + content);
  }

  /** Removes a file; false when it did not exist (or is read-only). */
  remove(p: string): boolean {
    const { vol, rel, readOnly } = this.resolve(p);
    return !readOnly && vol.files.delete(rel);
  }

  mkdir(p: string): void {
    const { vol, rel } = this.resolve(p);
    if (rel) vol.dirs.add(rel);
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
