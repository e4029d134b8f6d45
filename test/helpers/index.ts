// Shared helpers for end-to-end tests: free ports, temp dirs, a real
// apiserver process, kubeconfigs, kubectl/helm and a raw HTTP client.
// Import from here: `import { startApiserver, kubectl } from '../helpers/index.ts'`.
export { freePort } from './free-port.ts';
export { tempDir, removeTempDir } from './temp-dir.ts';
export { onExit } from './cleanup.ts';
export { spawnTracked, type TrackedProcess, type ExitStatus } from './processes.ts';
export { startApiserver, type Apiserver, type ApiserverOptions, type Identity } from './apiserver.ts';
export { connectRaw, openRaw, tlsFor, tlsMaterialOf, type ApiTarget, type Credentials, type TlsMaterial } from './tls.ts';
export { writeKubeconfig, kubeconfigObject, type KubeconfigAuth } from './kubeconfig.ts';
export { kubectl, helm, homeFor, type ToolOptions, type ToolResult } from './kubectl.ts';
export { api, WatchHttpError, type ApiClient, type ApiOptions, type ApiResponse, type WatchEvent, type WatchStream } from './api.ts';
export { repoRoot, ksimCli, ksimNodeArgs, kubectlBin, helmBin } from './paths.ts';
export { startCluster, type Cluster } from './cluster.ts';
export { eventually, until } from './until.ts';
export { ok } from './tool-result.ts';
