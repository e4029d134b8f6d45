// storage.k8s.io/v1: StorageClass (how volumes are provisioned on demand).
import type { GroupTable } from './types.ts';

export const storage: GroupTable = {
  prefix: 'io.k8s.api.storage.v1',
  types: {
    StorageClass: {
      provisioner: 'The driver that makes volumes of this class, e.g. "ebs.csi.aws.com" or "rancher.io/local-path". Cannot be changed.',
      parameters: 'Settings passed to the provisioner, such as disk type; which keys mean something depends on it. Cannot be changed.',
      reclaimPolicy: 'The reclaim policy given to volumes made from this class: Delete (the default) or Retain.',
      mountOptions: 'Mount options given to volumes made from this class, e.g. ["debug"]. Not checked in advance.',
      allowVolumeExpansion: 'Whether claims of this class may be grown by raising their requested size. Defaults to false.',
      volumeBindingMode:
        'When volumes are provisioned and bound: Immediate (as soon as the claim is created, the default) or WaitForFirstConsumer (when a pod using it is scheduled, so the volume is made where the pod runs).',
      allowedTopologies: 'Where volumes may be provisioned, by node labels such as topology.kubernetes.io/zone. Empty means anywhere.',
    },
  },
};
