// The /version document. ksim reports the Kubernetes minor it follows, so
// kubectl's version-skew check stays quiet, with "-ksim" marking what it is.
import os from 'node:os';

/** Kubernetes version ksim models. */
export const KUBE_VERSION = { major: '1', minor: '35', gitVersion: 'v1.35.0-ksim' };

/** The version.Info JSON kube serves. */
export function versionInfo(): Record<string, string> {
  return {
    major: KUBE_VERSION.major,
    minor: KUBE_VERSION.minor,
    emulationMajor: KUBE_VERSION.major,
    emulationMinor: KUBE_VERSION.minor,
    minCompatibilityMajor: KUBE_VERSION.major,
    minCompatibilityMinor: '34',
    gitVersion: KUBE_VERSION.gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-11-30T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsx',
    platform: `${os.platform()}/${os.arch() === 'x64' ? 'amd64' : os.arch()}`,
  };
}
