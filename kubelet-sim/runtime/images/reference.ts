// Image references as kubelet and containerd read them: the grammar of
// github.com/distribution/reference (ParseNormalizedNamed: docker.io and
// library/ filled in, lowercase repository names), so a name kubelet refuses
// (InvalidImageName) is refused here with the same error text, and a valid
// one normalizes to what containerd pulls and reports.

/** A parsed, normalized reference. */
export interface ImageRef {
  /** Registry host (and port): docker.io, registry.k8s.io, localhost:5000. */
  domain: string;
  /** Repository path inside the registry: library/nginx, e2e-test-images/agnhost. */
  path: string;
  tag?: string;
  digest?: string;
  /** domain/path: the repository as containerd names it. */
  repository: string;
  /** The reference containerd pulls: repository:tag (latest by default), or repository@digest. */
  full: string;
}

const alnum = '[a-z0-9]+';
const separator = '(?:[._]|__|[-]+)';
const pathComponent = `${alnum}(?:${separator}${alnum})*`;
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const host = `(?:${domainComponent}(?:\\.${domainComponent})*|\\[[a-fA-F0-9:]+\\])`;
const domainAndPort = `${host}(?::[0-9]+)?`;
const name = `(?:${domainAndPort}/)?${pathComponent}(?:/${pathComponent})*`;
const tag = '[\\w][\\w.-]{0,127}';
const digest = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}';
const REFERENCE = new RegExp(`^(${name})(?::(${tag}))?(?:@(${digest}))?$`);
const HEX64 = /^[a-f0-9]{64}$/;
const NAME_TOTAL_LENGTH_MAX = 255;

/** distribution/reference's splitDockerDomain: docker.io unless the first part looks like a host. */
function splitDockerDomain(s: string): [string, string] {
  const i = s.indexOf('/');
  let domain: string;
  let remainder: string;
  const first = i < 0 ? '' : s.slice(0, i);
  if (i < 0 || (!/[.:]/.test(first) && first !== 'localhost' && first.toLowerCase() === first)) {
    domain = 'docker.io';
    remainder = s;
  } else {
    domain = first;
    remainder = s.slice(i + 1);
  }
  if (domain === 'index.docker.io') domain = 'docker.io';
  if (domain === 'docker.io' && !remainder.includes('/')) remainder = `library/${remainder}`;
  return [domain, remainder];
}

/** Parses `image` as ParseNormalizedNamed does; the error text is distribution/reference's. */
export function parseImageRef(image: string): { ref: ImageRef } | { error: string } {
  if (HEX64.test(image)) return { error: `invalid repository name (${image}), cannot specify 64-byte hexadecimal strings` };
  const [domain, remainder] = splitDockerDomain(image);
  const tagSep = remainder.indexOf(':');
  const remote = tagSep < 0 ? remainder.split('@')[0] : remainder.slice(0, tagSep);
  if (remote.toLowerCase() !== remote) return { error: `invalid reference format: repository name (${remote}) must be lowercase` };
  const s = `${domain}/${remainder}`;
  const m = REFERENCE.exec(s);
  if (!m) {
    if (image === '') return { error: 'repository name must have at least one component' };
    if (REFERENCE.test(s.toLowerCase())) return { error: 'repository name must be lowercase' };
    return { error: 'invalid reference format' };
  }
  if (m[1].length > NAME_TOTAL_LENGTH_MAX) return { error: `repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters` };
  const repository = m[1];
  const path = repository.slice(domain.length + 1);
  const ref: ImageRef = { domain, path, repository, tag: m[2], digest: m[3], full: '' };
  ref.full = ref.digest ? `${repository}@${ref.digest}` : `${repository}:${ref.tag ?? 'latest'}`;
  return { ref };
}

/** kubelet's message for a reference it cannot parse (the container waits with InvalidImageName). */
export function invalidImageMessage(image: string, error: string): string {
  return `Failed to apply default image tag "${image}": couldn't parse image reference "${image}": ${error}`;
}
