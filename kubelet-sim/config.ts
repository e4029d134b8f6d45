// kubelet-sim's configuration: flags, and the optional profile file (YAML or
// JSON) that sets the node shape and the runtime's timings:
//   node:    { cpu: "8", memory: 32Gi, pods: "110", labels: {...}, zones: [eu-west-1a, eu-west-1b], taints: [...] }
//   timings: { pullMs: 500, sandboxMs: 200, ... }   (at speed 1; --speed divides them)
import fs from 'node:fs';
import YAML from 'yaml';
import type { FlagSpec } from '../shared/cli/flags.ts';
import { DEFAULT_PROFILE, type NodeProfile } from './node/node-object.ts';
import { DEFAULT_TIMINGS, scaleTimings, type Timings } from './runtime/timings.ts';

/** `ksim kubelet-sim` flags. */
export const KUBELET_SIM_FLAGS = {
  kubeconfig: { type: 'string', default: '', help: 'kubeconfig of the identity the nodes use (required)' },
  nodes: { type: 'number', default: 1, help: 'number of simulated nodes in this process' },
  'name-prefix': { type: 'string', default: 'node-', help: 'node names are PREFIX + index' },
  'start-index': { type: 'number', default: 0, help: 'index of the first node (for several processes)' },
  speed: { type: 'number', default: 1, help: 'divide every simulated duration by this' },
  profile: { type: 'string', default: '', help: 'YAML/JSON file with node shape and timings' },
  'image-catalog': {
    type: 'string',
    default: '',
    help: 'YAML file of images the simulated registries also hold (images: [{repository, tags, entrypoint, cmd, ports, serves}])',
  },
  port: { type: 'number', default: 0, help: 'plain-http control port: health, metrics and chaos switches (0 = pick)' },
  'kubelet-port': {
    type: 'number',
    default: 0,
    help: 'port of the kubelet API the apiserver proxies logs, exec and attach to; https when the apiserver is (0 = pick)',
  },
  'ingress-port': {
    type: 'number',
    default: 0,
    help: "plain-http port of ksim's ingress-nginx on the host: routes by the Host header to the Ingresses' Services (0 = pick; the log tells)",
  },
  'client-ca-file': {
    type: 'string',
    default: '',
    help: "CA bundle that verifies the kubelet API's client certificates (default: the kubeconfig's CA)",
  },
  'impersonate-nodes': {
    type: 'boolean',
    default: true,
    help: "each node's requests go as system:node:NAME by impersonation (false: all as the kubeconfig's user)",
  },
  'tls-cert-file': {
    type: 'string',
    default: '',
    help: "the kubelet API's serving certificate (PEM, with its chain); without it a self-signed one is made at start, as kubelet does",
  },
  'tls-private-key-file': { type: 'string', default: '', help: 'the key of --tls-cert-file' },
  'control-plane-node': {
    type: 'string',
    default: '',
    help: "name of one more node, the control plane's (kube's role label and NoSchedule taint), running the --static-pods",
  },
  'static-pods': {
    type: 'string',
    default: '',
    help: "the control-plane node's static Pods: COMPONENT=URL of its health endpoints, comma-separated (kube-apiserver, kube-controller-manager, kube-scheduler)",
  },
  'bind-address': {
    type: 'string',
    default: '127.0.0.1',
    help: 'address the port listens on, and that the Nodes advertise to the apiserver',
  },
  help: { type: 'boolean', help: 'print this help' },
} satisfies FlagSpec;

/** A profile file's contents. */
export interface ProfileFile {
  node?: Partial<NodeProfile>;
  timings?: Partial<Timings>;
}

/** Reads a profile file (or none) into a node profile and scaled timings. */
export function loadProfile(path: string, speed: number): { profile: NodeProfile; timings: Timings } {
  const file = path ? asProfileFile(YAML.parse(fs.readFileSync(path, 'utf8'))) : {};
  const profile: NodeProfile = { ...DEFAULT_PROFILE, ...(file.node ?? {}) };
  for (const k of ['cpu', 'memory', 'pods', 'ephemeralStorage'] as const) profile[k] = String(profile[k]);
  const timings = scaleTimings({ ...DEFAULT_TIMINGS, ...(file.timings ?? {}) }, speed);
  return { profile, timings };
}

/** A parsed profile file: an object as written; an empty file (or a scalar, which has no field) is no profile. */
function asProfileFile(doc: unknown): ProfileFile {
  return typeof doc === 'object' && doc !== null ? doc : {};
}
