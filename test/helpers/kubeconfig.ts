// Tests write kubeconfigs with the same code as `ksim up`.
export { kubeconfigObject, writeKubeconfig, type KubeconfigAuth } from '../../shared/client/kubeconfig-file.ts';
