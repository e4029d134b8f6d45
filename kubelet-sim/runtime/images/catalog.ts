// The images the simulated registries hold, as data: each repository with the
// tags it really has (2025-2026), the user it runs as, its entrypoint and
// default command, the ports it exposes and which simulated program serves
// it. A tag outside the list is "not found" on pull; a repository outside
// the catalog does not exist. Repositories with hundreds of tags (python,
// node, alpine's point releases) use a tag pattern instead of a list: the
// comment beside each says so. A profile file (`--image-catalog FILE`, YAML:
// `images: [ {repository, tags, tagPattern, entrypoint, cmd, ports, user,
// serves} ]`) adds or replaces repositories.
import fs from 'node:fs';
import YAML from 'yaml';
import type { ImageRef } from './reference.ts';

/** One repository. */
export interface ImageInfo {
  /** As containerd names it: docker.io/library/nginx, registry.k8s.io/pause. */
  repository: string;
  /** Other names of the same repository (k8s.gcr.io for registry.k8s.io, a mirror). */
  aliases?: string[];
  /** Tags that exist, literally. */
  tags?: string[];
  /** Version series: "1.25" with its last patch 5 means 1.25 and 1.25.0 .. 1.25.5 exist. */
  series?: Record<string, number>;
  /** Suffixes every versioned tag also comes with (-alpine, -slim). */
  variants?: string[];
  /** A regular expression for repositories with too many tags to list. */
  tagPattern?: string;
  /** The image's USER (empty: root). */
  user?: string;
  entrypoint?: string[];
  cmd?: string[];
  workingDir?: string;
  /** EXPOSEd ports. */
  ports?: number[];
  /** The simulated program behind the image's own command (see programs.ts); none: the command runs in the shell. */
  serves?: string;
  /** Programs the image ships besides the shell's commands (redis-cli in redis, perl in perl). */
  programs?: string[];
  /** Files of the image (the welcome page nginx serves). */
  files?: Record<string, string>;
  /**
   * What its process uses when idle, and the CPU one request to its server costs, as quantities ("2m", "5Mi",
   * "10m" = 10 ms of CPU); unset: the usage model's table (runtime/usage/baselines.ts).
   */
  usage?: { cpu?: string; memory?: string; cpuPerRequest?: string };
}

const NGINX_WELCOME = `<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and
working. Further configuration is required.</p>

<p>For online documentation and support please refer to
<a href="http://nginx.org/">nginx.org</a>.<br/>
Commercial support is available at
<a href="http://nginx.com/">nginx.com</a>.</p>

<p><em>Thank you for using nginx.</em></p>
</body>
</html>
`;

const NGINX_50X = `<!DOCTYPE html>
<html>
<head>
<title>Error</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>An error occurred.</h1>
<p>Sorry, the page you are looking for is currently unavailable.<br/>
Please try again later.</p>
<p>If you are the system administrator of this resource then you should check
the error log for details.</p>
<p><em>Faithfully yours, nginx.</em></p>
</body>
</html>
`;

const NGINX_FILES = { '/usr/share/nginx/html/index.html': NGINX_WELCOME, '/usr/share/nginx/html/50x.html': NGINX_50X };
const HTTPD_FILES = { '/usr/local/apache2/htdocs/index.html': '<html><body><h1>It works!</h1></body></html>\n' };

/** The built-in catalog. */
export const BUILTIN_IMAGES: ImageInfo[] = [
  {
    repository: 'docker.io/library/nginx',
    tags: ['latest', 'stable', 'mainline', 'alpine', 'alpine-slim', 'perl', 'alpine-perl', 'bookworm', 'trixie', 'otel', '1'],
    series: {
      '1.14': 2,
      '1.15': 12,
      '1.16': 1,
      '1.17': 10,
      '1.18': 0,
      '1.19': 10,
      '1.20': 2,
      '1.21': 6,
      '1.22': 1,
      '1.23': 4,
      '1.24': 0,
      '1.25': 5,
      '1.26': 3,
      '1.27': 5,
      '1.28': 0,
      '1.29': 3,
    },
    variants: ['-alpine', '-alpine-slim', '-perl', '-alpine-perl', '-bookworm', '-bullseye', '-trixie', '-otel'],
    entrypoint: ['/docker-entrypoint.sh'],
    cmd: ['nginx', '-g', 'daemon off;'],
    ports: [80],
    serves: 'nginx',
    files: NGINX_FILES,
  },
  {
    repository: 'docker.io/nginxinc/nginx-unprivileged',
    tags: ['latest', 'stable', 'mainline', 'alpine', 'alpine-slim'],
    series: { '1.25': 5, '1.26': 3, '1.27': 5, '1.28': 0, '1.29': 3 },
    variants: ['-alpine', '-alpine-slim', '-bookworm'],
    user: 'nginx',
    entrypoint: ['/docker-entrypoint.sh'],
    cmd: ['nginx', '-g', 'daemon off;'],
    ports: [8080],
    serves: 'nginx',
    files: NGINX_FILES,
  },
  {
    repository: 'registry.k8s.io/nginx-slim',
    aliases: ['k8s.gcr.io/nginx-slim', 'gcr.io/google_containers/nginx-slim'],
    tags: ['0.7', '0.8', '0.20', '0.21', '0.24', '0.26', '0.27'],
    cmd: ['nginx', '-g', 'daemon off;'],
    ports: [80],
    serves: 'nginx',
    files: NGINX_FILES,
  },
  {
    repository: 'docker.io/library/httpd',
    tags: ['latest', 'alpine', 'bookworm', 'trixie', '2', '2-alpine'],
    // 2.4.x: every point release from 2.4.10 on is a tag (2.4.0-2.4.9 predate the official image).
    tagPattern: '^2\\.4(\\.(1\\d|[2-5]\\d|6[0-6]))?(-(alpine|bookworm|bullseye|trixie))?$',
    entrypoint: [],
    cmd: ['httpd-foreground'],
    ports: [80],
    serves: 'httpd',
    files: HTTPD_FILES,
  },
  {
    repository: 'docker.io/library/busybox',
    tags: [
      'latest',
      'stable',
      'musl',
      'glibc',
      'uclibc',
      '1',
      '1.24',
      '1.25',
      '1.26',
      '1.27',
      '1.27.2',
      '1.28',
      '1.28.4',
      '1.29',
      '1.29.3',
      '1.30',
      '1.30.1',
      '1.31',
      '1.31.1',
      '1.32',
      '1.32.1',
      '1.33',
      '1.33.1',
      '1.34',
      '1.34.1',
      '1.35',
      '1.35.0',
      '1.36',
      '1.36.0',
      '1.36.1',
      '1.37',
      '1.37.0',
    ],
    variants: ['-musl', '-glibc', '-uclibc'],
    cmd: ['sh'],
  },
  {
    repository: 'registry.k8s.io/busybox',
    aliases: ['k8s.gcr.io/busybox', 'gcr.io/google_containers/busybox'],
    tags: ['latest', '1.24', '1.27.2'],
    cmd: ['sh'],
  },
  {
    repository: 'registry.k8s.io/e2e-test-images/busybox',
    tags: ['1.29-1', '1.29-2', '1.29-4', '1.36.1-1', '1.37.0-1'],
    cmd: ['sh'],
  },
  {
    repository: 'docker.io/library/alpine',
    tags: ['latest', 'edge', '3'],
    // Every 3.x and 3.x.y release from 3.10 to 3.23.
    tagPattern: '^3\\.(1\\d|2[0-3])(\\.\\d{1,2})?$',
    cmd: ['/bin/sh'],
  },
  {
    repository: 'docker.io/library/ubuntu',
    tags: [
      'latest',
      'rolling',
      'devel',
      '16.04',
      '18.04',
      '20.04',
      '22.04',
      '24.04',
      '24.10',
      '25.04',
      '25.10',
      'xenial',
      'bionic',
      'focal',
      'jammy',
      'noble',
      'oracular',
      'plucky',
      'questing',
    ],
    // Dated snapshots too: jammy-20240911, noble-20250415.
    tagPattern: '^(bionic|focal|jammy|noble|plucky|questing)-20\\d{6}(\\.\\d)?$',
    cmd: ['/bin/bash'],
  },
  {
    repository: 'docker.io/library/debian',
    tags: ['latest', 'stable', 'testing', 'unstable', 'sid', 'buster', 'bullseye', 'bookworm', 'trixie', '10', '11', '12', '13'],
    // Point releases and -slim of each: 12.11, bookworm-slim, 13-slim.
    tagPattern: '^((buster|bullseye|bookworm|trixie|stable|testing|sid|1[0-3])(-slim)?|1[0-3]\\.\\d{1,2}(-slim)?)$',
    cmd: ['bash'],
  },
  {
    repository: 'docker.io/library/redis',
    tags: ['latest', 'alpine', 'bookworm', '6', '7', '8', '6-alpine', '7-alpine', '8-alpine'],
    series: { '6.0': 20, '6.2': 20, '7.0': 15, '7.2': 10, '7.4': 6, '8.0': 4, '8.2': 3, '8.4': 0 },
    variants: ['-alpine', '-bookworm', '-trixie'],
    user: 'redis',
    entrypoint: ['docker-entrypoint.sh'],
    cmd: ['redis-server'],
    workingDir: '/data',
    ports: [6379],
    serves: 'redis',
    programs: ['redis-cli', 'redis-server'],
  },
  {
    repository: 'docker.io/library/memcached',
    tags: ['latest', 'alpine', 'bookworm', '1', '1-alpine', '1.6', '1.6-alpine'],
    // 1.6.x point releases (1.6.0 .. 1.6.39).
    tagPattern: '^1\\.6\\.([0-9]|[1-3][0-9])(-(alpine|bookworm|trixie))?$',
    user: 'memcache',
    entrypoint: ['docker-entrypoint.sh'],
    cmd: ['memcached'],
    ports: [11211],
    serves: 'memcached',
  },
  {
    repository: 'docker.io/library/mysql',
    tags: ['latest', 'lts', 'innovation', 'oracle', 'debian', '5', '5.7', '5.7.44', '8', '8.0', '8.4', '9'],
    series: { '8.0': 44, '8.4': 7, '9.0': 1, '9.1': 0, '9.2': 0, '9.3': 0, '9.4': 0, '9.5': 0 },
    variants: ['-oracle', '-debian', '-bookworm'],
    entrypoint: ['docker-entrypoint.sh'],
    cmd: ['mysqld'],
    ports: [3306, 33060],
    serves: 'mysql',
    programs: ['mysql', 'mysqld'],
  },
  {
    repository: 'docker.io/library/postgres',
    tags: ['latest', 'alpine', 'bookworm', 'trixie', '12', '13', '14', '15', '16', '17', '18'],
    series: { '12': 22, '13': 22, '14': 19, '15': 14, '16': 10, '17': 6, '18': 0 },
    variants: ['-alpine', '-bookworm', '-bullseye', '-trixie'],
    entrypoint: ['docker-entrypoint.sh'],
    cmd: ['postgres'],
    ports: [5432],
    serves: 'postgres',
    programs: ['psql', 'postgres'],
  },
  {
    repository: 'docker.io/library/mongo',
    tags: ['latest', 'jammy', 'noble', '4', '5', '6', '7', '8', '4.4', '5.0', '6.0', '7.0', '8.0'],
    tagPattern: '^(4\\.4\\.\\d{1,2}|5\\.0\\.\\d{1,2}|6\\.0\\.\\d{1,2}|7\\.0\\.\\d{1,2}|8\\.0\\.\\d{1,2})(-(jammy|noble|focal))?$',
    entrypoint: ['docker-entrypoint.sh'],
    cmd: ['mongod'],
    ports: [27017],
    serves: 'mongo',
    programs: ['mongosh', 'mongod'],
  },
  {
    repository: 'docker.io/library/perl',
    tags: ['latest', 'slim', 'threaded', '5', '5-slim'],
    series: { '5.30': 3, '5.32': 1, '5.34': 3, '5.36': 3, '5.38': 4, '5.40': 2, '5.42': 0 },
    variants: ['-slim', '-threaded', '-bookworm', '-slim-bookworm', '-bullseye', '-trixie'],
    cmd: ['perl', '-de0'],
    programs: ['perl'],
  },
  {
    repository: 'docker.io/library/python',
    tags: ['latest', 'slim', 'alpine', 'bookworm', 'trixie', '3', '3-slim', '3-alpine'],
    // Every 3.x and 3.x.y from 3.6 on, with the Debian and Alpine variants.
    tagPattern:
      '^3\\.([6-9]|1[0-4])(\\.\\d{1,2})?(-(slim|alpine|bookworm|bullseye|trixie|slim-bookworm|slim-bullseye|slim-trixie|alpine3\\.\\d{2}))?$',
    cmd: ['python3'],
    programs: ['python', 'python3'],
  },
  {
    repository: 'docker.io/library/node',
    tags: ['latest', 'lts', 'current', 'alpine', 'slim', 'bookworm', 'lts-alpine', 'lts-slim'],
    // Every major, major.minor and major.minor.patch from 12 to 25, with variants.
    tagPattern: '^(1[2-9]|2[0-5])(\\.\\d{1,2}){0,2}(-(alpine|slim|bookworm|bullseye|trixie|bookworm-slim|alpine3\\.\\d{2}))?$',
    entrypoint: ['docker-entrypoint.sh'],
    cmd: ['node'],
    programs: ['node', 'npm'],
  },
  {
    repository: 'registry.k8s.io/pause',
    aliases: ['k8s.gcr.io/pause', 'gcr.io/google_containers/pause'],
    tags: ['3.1', '3.2', '3.3', '3.4.1', '3.5', '3.6', '3.7', '3.8', '3.9', '3.10', '3.10.1'],
    user: '65535:65535',
    entrypoint: ['/pause'],
    serves: 'pause',
  },
  {
    // kubeadm's cluster DNS (registry.k8s.io nests it as coredns/coredns since v1.8.4).
    repository: 'registry.k8s.io/coredns/coredns',
    aliases: ['k8s.gcr.io/coredns/coredns'],
    tags: ['v1.8.4', 'v1.8.6', 'v1.9.3', 'v1.10.0', 'v1.10.1', 'v1.11.1', 'v1.11.3', 'v1.12.0', 'v1.12.1'],
    entrypoint: ['/coredns'],
    ports: [53, 9153],
    serves: 'coredns',
  },
  {
    repository: 'registry.k8s.io/e2e-test-images/agnhost',
    // 2.10 .. 2.57: each agnhost release is a tag (the e2e suite pins one; the docs use 2.39 and 2.40).
    tagPattern: '^2\\.(1\\d|[2-4]\\d|5[0-7])$',
    entrypoint: ['/agnhost'],
    serves: 'agnhost',
    programs: ['agnhost', '/agnhost'],
  },
  {
    repository: 'registry.k8s.io/echoserver',
    aliases: ['k8s.gcr.io/echoserver', 'gcr.io/google_containers/echoserver'],
    tags: ['1.4', '1.10'],
    cmd: ['/usr/local/bin/run.sh'],
    ports: [8080],
    serves: 'echoserver',
  },
  {
    repository: 'gcr.io/google-samples/kubernetes-bootcamp',
    aliases: ['docker.io/jocatalin/kubernetes-bootcamp'],
    tags: ['v1', 'v2'],
    cmd: ['/bin/sh', '-c', 'node server.js'],
    ports: [8080],
    serves: 'bootcamp',
  },
  {
    repository: 'us-docker.pkg.dev/google-samples/containers/gke/hello-app',
    aliases: ['gcr.io/google-samples/hello-app'],
    tags: ['1.0', '2.0'],
    cmd: ['/hello-app'],
    ports: [8080],
    serves: 'hello-app',
  },
  {
    repository: 'docker.io/hashicorp/http-echo',
    tags: ['latest', '0.2.3', '1.0', '1.0.0'],
    entrypoint: ['/http-echo'],
    ports: [5678],
    serves: 'http-echo',
  },
  {
    repository: 'docker.io/crccheck/hello-world',
    tags: ['latest', 'v1.0.0'],
    cmd: ['/bin/sh', '-c', 'echo "httpd started" && trap "exit 0;" TERM INT; httpd -v -p $PORT -h /www -f & wait'],
    ports: [8000],
    serves: 'hello-world',
  },
  {
    repository: 'registry.k8s.io/goproxy',
    aliases: ['k8s.gcr.io/goproxy'],
    tags: ['0.1'],
    cmd: ['/goproxy'],
    ports: [8080],
    serves: 'tcp',
  },
  {
    repository: 'registry.k8s.io/hpa-example',
    aliases: ['k8s.gcr.io/hpa-example'],
    tags: ['latest'],
    ports: [80],
    serves: 'hpa-example',
  },
  {
    repository: 'docker.io/traefik/whoami',
    tags: ['latest', 'v1.10', 'v1.10.1', 'v1.10.2', 'v1.10.3', 'v1.10.4', 'v1.11', 'v1.11.0'],
    entrypoint: ['/whoami'],
    ports: [80],
    serves: 'whoami',
  },
  {
    repository: 'docker.io/curlimages/curl',
    tags: ['latest', '8.5.0', '8.8.0', '8.10.1', '8.11.1', '8.12.1', '8.13.0', '8.14.1', '8.15.0', '8.16.0', '8.17.0'],
    user: 'curl_user',
    entrypoint: ['/entrypoint.sh'],
    cmd: ['curl'],
  },
  {
    repository: 'docker.io/nicolaka/netshoot',
    tags: ['latest', 'v0.11', 'v0.12', 'v0.13', 'v0.14'],
    cmd: ['zsh'],
  },
  {
    repository: 'docker.io/polinux/stress',
    tags: ['latest', '1.0.4'],
    cmd: ['stress', '--help'],
  },
  {
    repository: 'docker.io/kodekloud/webapp-color',
    tags: ['latest', 'v1', 'v2', 'v3'],
    entrypoint: ['python', 'app.py'],
    ports: [8080],
    serves: 'webapp-color',
  },
  {
    repository: 'docker.io/library/wordpress',
    tags: ['latest', 'apache', 'fpm', '6', '6.4', '6.5', '6.6', '6.7', '6.8', '6-apache', '6.8-apache', 'php8.2-apache', 'php8.3-apache'],
    entrypoint: ['docker-entrypoint.sh'],
    cmd: ['apache2-foreground'],
    ports: [80],
    serves: 'tcp',
  },
  {
    repository: 'docker.io/library/mariadb',
    tags: ['latest', 'lts', '10', '10.6', '10.11', '11', '11.4', '11.8', '12'],
    entrypoint: ['docker-entrypoint.sh'],
    cmd: ['mariadbd'],
    ports: [3306],
    serves: 'tcp',
  },
  {
    repository: 'docker.io/library/rabbitmq',
    tags: ['latest', 'management', 'alpine', '3', '3-management', '3.13', '3.13-management', '4', '4-management', '4.0', '4.1'],
    entrypoint: ['docker-entrypoint.sh'],
    cmd: ['rabbitmq-server'],
    ports: [5672],
    serves: 'tcp',
  },
  {
    repository: 'docker.io/library/traefik',
    tags: ['latest', 'v2', 'v2.11', 'v3', 'v3.0', 'v3.1', 'v3.2', 'v3.3', 'v3.4', 'v3.5'],
    entrypoint: ['/entrypoint.sh'],
    cmd: ['traefik'],
    ports: [80],
    serves: 'tcp',
  },
  {
    repository: 'gcr.io/google-samples/gb-frontend',
    tags: ['v4', 'v5', 'v6'],
    ports: [80],
    serves: 'tcp',
  },
  {
    repository: 'gcr.io/google-samples/node-hello',
    tags: ['1.0'],
    cmd: ['/bin/sh', '-c', 'node server.js'],
    ports: [8080],
    serves: 'node-hello',
  },
  {
    repository: 'registry.k8s.io/liveness',
    aliases: ['k8s.gcr.io/liveness'],
    tags: ['latest'],
    // The docs' old HTTP liveness example: args [/server], /healthz 200 for 10 s, then 500.
    cmd: ['/server'],
    ports: [8080],
    serves: 'liveness',
    programs: ['/server'],
  },
  {
    repository: 'registry.k8s.io/e2e-test-images/jessie-dnsutils',
    tags: ['1.3', '1.4', '1.5', '1.7'],
    cmd: ['/bin/bash'],
    programs: ['dig', 'host'],
  },
  {
    repository: 'quay.io/fluentd_elasticsearch/fluentd',
    tags: ['v2.5.2', 'v3.0.1', 'v3.0.2', 'v3.1.0', 'v4.0.0', 'v5.0.1'],
    cmd: ['/run.sh'],
    serves: 'tcp',
  },
  {
    repository: 'quay.io/prometheus/node-exporter',
    aliases: ['docker.io/prom/node-exporter'],
    tags: ['latest', 'master'],
    tagPattern: '^v1\\.([0-9])\\.[0-9]$',
    user: 'nobody',
    entrypoint: ['/bin/node_exporter'],
    ports: [9100],
    serves: 'tcp',
  },
  {
    repository: 'docker.io/prom/prometheus',
    aliases: ['quay.io/prometheus/prometheus'],
    tags: ['latest', 'main'],
    tagPattern: '^v(2\\.(4[0-9]|5[0-5])\\.[0-9]|3\\.[0-7]\\.[0-9])$',
    user: 'nobody',
    entrypoint: ['/bin/prometheus'],
    ports: [9090],
    serves: 'tcp',
  },
  {
    repository: 'docker.io/grafana/grafana',
    tags: ['latest', 'main'],
    tagPattern: '^(10|11|12)\\.\\d\\.\\d$',
    user: '472',
    ports: [3000],
    serves: 'tcp',
  },
  {
    repository: 'docker.io/library/tomcat',
    tags: ['latest', '9', '10', '11', '9.0', '10.1', '11.0', 'jre17', 'jre21', '10-jdk17', '10.1-jdk17', '11-jdk21'],
    cmd: ['catalina.sh', 'run'],
    ports: [8080],
    serves: 'tcp',
  },
  {
    repository: 'docker.io/library/haproxy',
    tags: ['latest', 'alpine', 'lts', '2.8', '3.0', '3.1', '3.2', '2.8-alpine', '3.0-alpine', '3.2-alpine'],
    user: 'haproxy',
    cmd: ['haproxy', '-f', '/usr/local/etc/haproxy/haproxy.cfg'],
    ports: [80],
    serves: 'tcp',
  },
  {
    repository: 'docker.io/library/registry',
    tags: ['latest', '2', '2.8', '2.8.3', '3', '3.0', '3.0.0'],
    entrypoint: ['/entrypoint.sh'],
    cmd: ['/etc/distribution/config.yml'],
    ports: [5000],
    serves: 'tcp',
  },
  {
    repository: 'docker.io/jenkins/jenkins',
    tags: ['latest', 'lts', 'lts-jdk17', 'lts-jdk21', 'jdk17', 'jdk21'],
    user: 'jenkins',
    ports: [8080, 50000],
    serves: 'tcp',
  },
  {
    repository: 'ghcr.io/stefanprodan/podinfo',
    aliases: ['docker.io/stefanprodan/podinfo'],
    tags: ['latest'],
    tagPattern: '^6\\.[0-9]\\.[0-9]$',
    user: 'app',
    ports: [9898],
    serves: 'tcp',
  },
  {
    repository: 'docker.io/kennethreitz/httpbin',
    tags: ['latest'],
    ports: [80],
    serves: 'tcp',
  },
];

/** How a pull of a reference ends against the catalog. */
export type Lookup = { found: ImageInfo } | { missing: 'tag' | 'repository' | 'host' };

/** Registries the simulated network reaches; any other host does not resolve. */
const KNOWN_REGISTRIES = new Set([
  'docker.io',
  'registry.k8s.io',
  'k8s.gcr.io',
  'gcr.io',
  'us-docker.pkg.dev',
  'quay.io',
  'ghcr.io',
  'public.ecr.aws',
  'mcr.microsoft.com',
  'registry.gitlab.com',
]);

function tagExists(info: ImageInfo, tag: string): boolean {
  if (info.tags?.includes(tag)) return true;
  if (info.tagPattern && new RegExp(info.tagPattern).test(tag)) return true;
  const bases = [tag, ...(info.variants ?? []).filter((v) => tag.endsWith(v)).map((v) => tag.slice(0, -v.length))];
  for (const base of bases) {
    if (base !== tag && info.tags?.includes(base)) return true;
    for (const [minor, lastPatch] of Object.entries(info.series ?? {})) {
      if (base === minor) return true;
      if (base.startsWith(minor + '.')) {
        const patch = base.slice(minor.length + 1);
        if (/^\d+$/.test(patch) && Number(patch) <= lastPatch) return true;
      }
    }
  }
  return false;
}

/** The catalog of one kubelet-sim process. */
export class ImageCatalog {
  private readonly byName = new Map<string, ImageInfo>();

  constructor(images: ImageInfo[] = BUILTIN_IMAGES) {
    this.add(images);
  }

  /** Adds (or replaces) repositories. */
  add(images: ImageInfo[]): void {
    for (const i of images) for (const n of [i.repository, ...(i.aliases ?? [])]) this.byName.set(n, i);
  }

  /** The repository's entry, whatever the tag. */
  info(repository: string): ImageInfo | undefined {
    return this.byName.get(repository);
  }

  /** Whether `ref` can be pulled, and what it is. A digest is taken as one the registry has. */
  lookup(ref: ImageRef): Lookup {
    const info = this.byName.get(ref.repository);
    if (!info) return { missing: KNOWN_REGISTRIES.has(ref.domain) ? 'repository' : 'host' };
    if (ref.digest || tagExists(info, ref.tag ?? 'latest')) return { found: info };
    return { missing: 'tag' };
  }
}

/** Reads a `--image-catalog` file: `images:` (or a bare list) of ImageInfo, repositories normalized. */
export function loadCatalogFile(file: string): ImageInfo[] {
  const doc: unknown = YAML.parse(fs.readFileSync(file, 'utf8'));
  const list: unknown = Array.isArray(doc)
    ? doc
    : typeof doc === 'object' && doc !== null
      ? (doc as { images?: unknown }).images
      : undefined;
  if (!Array.isArray(list)) throw new Error(`${file}: expected a list of images under "images:"`);
  return list.map((x: unknown, i) => {
    if (typeof x !== 'object' || x === null || typeof (x as ImageInfo).repository !== 'string')
      throw new Error(`${file}: images[${i}].repository: required`);
    const info = { ...(x as ImageInfo) };
    const first = info.repository.split('/')[0];
    if (!info.repository.includes('/')) info.repository = `docker.io/library/${info.repository}`;
    else if (!/[.:]/.test(first) && first !== 'localhost') info.repository = `docker.io/${info.repository}`;
    if (info.tags) info.tags = info.tags.map(String);
    return info;
  });
}

/** The process's catalog (the built-in images, plus any --image-catalog file the process loaded). */
export const PROCESS_CATALOG = new ImageCatalog();
