// core/v1, volumes of a pod: the Volume list entry, the common sources
// (emptyDir, configMap, secret, PVC, hostPath, projected, downwardAPI,
// ephemeral, image) and the older in-tree plugins, which PersistentVolumes
// share (their *PersistentVolumeSource twins are described here too).
import type { GroupTable, TypeTable } from './types.ts';
import { LEGACY } from './common.ts';

const defaultMode =
  'Permission bits of the files created, as a number (octal 0644 in YAML is 420 in JSON). Defaults to 0644. Directories get the execute bits too.';
const items =
  'Which keys to project and under which file names. Without it every key becomes a file named after the key; with it only the listed keys appear.';
const legacy = (what: string): string => `Deprecated in-tree plugin: ${what}. New clusters use a CSI driver instead.`;

const cephfs: TypeTable = {
  $: 'A CephFS filesystem mount.',
  monitors: LEGACY.monitors,
  path: 'The directory of the filesystem to mount. Defaults to /.',
  user: 'The Ceph user name. Defaults to admin.',
  secretFile: 'Path of the keyring file on the node. Defaults to /etc/ceph/user.secret.',
  secretRef: LEGACY.secretRef,
  readOnly: LEGACY.readOnly,
};
const cinder: TypeTable = {
  $: 'An OpenStack Cinder volume.',
  volumeID: LEGACY.volumeID,
  fsType: LEGACY.fsType,
  readOnly: LEGACY.readOnly,
  secretRef: LEGACY.secretRef,
};
const flex: TypeTable = {
  $: 'A volume handled by a FlexVolume driver executable on the node.',
  driver: 'The name of the driver.',
  fsType: LEGACY.fsType,
  secretRef: LEGACY.secretRef,
  readOnly: LEGACY.readOnly,
  options: 'Extra driver-specific options.',
};
const iscsi: TypeTable = {
  $: 'An iSCSI disk.',
  targetPortal: 'The iSCSI target portal, as IP or IP:port (default port 3260).',
  iqn: 'The iSCSI qualified name of the target.',
  lun: LEGACY.lun,
  iscsiInterface: 'The iSCSI interface to use. Defaults to "default" (tcp).',
  fsType: LEGACY.fsType,
  readOnly: LEGACY.readOnly,
  portals: 'Extra target portals, for multipath.',
  chapAuthDiscovery: 'Use CHAP authentication for discovery.',
  chapAuthSession: 'Use CHAP authentication for the session.',
  secretRef: 'The Secret holding the CHAP credentials.',
  initiatorName: 'A custom initiator name; a new interface <portal>:<name> is created for the connection.',
};
const rbd: TypeTable = {
  $: 'A Ceph RADOS block device.',
  monitors: LEGACY.monitors,
  image: 'The name of the RBD image.',
  fsType: LEGACY.fsType,
  pool: 'The RADOS pool. Defaults to rbd.',
  user: 'The RADOS user name. Defaults to admin.',
  keyring: 'Path of the keyring on the node. Defaults to /etc/ceph/keyring.',
  secretRef: LEGACY.secretRef,
  readOnly: LEGACY.readOnly,
};
const scaleio: TypeTable = {
  $: 'A Dell EMC ScaleIO volume.',
  gateway: 'The address of the ScaleIO API gateway.',
  system: 'The name of the ScaleIO storage system.',
  secretRef: LEGACY.secretRef,
  sslEnabled: 'Talk to the gateway over TLS. Defaults to false.',
  protectionDomain: 'The protection domain of the storage.',
  storagePool: 'The storage pool of the protection domain.',
  storageMode: 'ThickProvisioned or ThinProvisioned (the default).',
  volumeName: 'The name of an existing volume in the system.',
  fsType: LEGACY.fsType,
  readOnly: LEGACY.readOnly,
};
const storageos: TypeTable = {
  $: 'A StorageOS volume.',
  volumeName: 'The name of the StorageOS volume.',
  volumeNamespace: "The StorageOS namespace of the volume. Defaults to the pod's namespace.",
  fsType: LEGACY.fsType,
  readOnly: LEGACY.readOnly,
  secretRef: LEGACY.secretRef,
};
const glusterfs: TypeTable = {
  $: 'A GlusterFS mount.',
  endpoints: 'The Endpoints object that lists the Gluster servers.',
  path: 'The Gluster volume path.',
  readOnly: LEGACY.readOnly,
};
const azureFile: TypeTable = {
  $: 'An Azure Files share mount.',
  secretName: 'The Secret holding the storage account name and key.',
  shareName: 'The name of the share.',
  readOnly: LEGACY.readOnly,
};
const csi: TypeTable = {
  $: 'A volume provided by a CSI driver directly in the pod spec, living only as long as the pod (the driver must support this mode).',
  driver: 'The name of the CSI driver, as registered on the node.',
  readOnly: 'Mount the volume read-only. Defaults to false.',
  fsType: 'The filesystem type; empty lets the driver choose.',
  volumeAttributes: 'Driver-specific settings for the volume.',
  nodePublishSecretRef: 'A Secret with credentials passed to the driver when the volume is mounted.',
};

export const coreVolumes: GroupTable = {
  prefix: 'io.k8s.api.core.v1',
  types: {
    Volume: {
      $: 'A named volume of a pod, which its containers can mount. Exactly one source field is set besides name.',
      name: "The volume's name, unique in the pod (a DNS label); volumeMounts refer to it.",
      emptyDir:
        'An empty directory created when the pod starts on a node and deleted with the pod; shared by its containers. Good for scratch space.',
      configMap: 'The keys of a ConfigMap as files. Updates of the ConfigMap show up in the files after a short delay (not with subPath).',
      secret: 'The keys of a Secret as files, kept in memory (tmpfs) on the node.',
      persistentVolumeClaim: "A PersistentVolumeClaim in the pod's namespace: storage that outlives the pod.",
      hostPath:
        "A file or directory of the node's filesystem. Gives access to the node itself, so use it only for system agents; data stays behind on that node.",
      projected: 'Several sources (ConfigMaps, Secrets, downward API, service account tokens) merged into one directory.',
      downwardAPI: 'Facts about the pod itself (labels, annotations, name, resources) as files.',
      ephemeral:
        'A volume from a PersistentVolumeClaim created for this pod from a template and deleted with it: like emptyDir, but from a storage class.',
      image: 'The contents of an OCI image (or artifact) mounted read-only, pulled like a container image.',
      csi: 'A volume from a CSI driver that supports inline ephemeral volumes.',
      nfs: 'An NFS export, mounted from a server.',
      iscsi: 'An iSCSI disk, attached to the node and mounted.',
      fc: 'A Fibre Channel disk, attached to the node and mounted.',
      gitRepo:
        'Deprecated: a directory with a git repository cloned into it. Use an init container that runs git clone into an emptyDir instead.',
      awsElasticBlockStore: legacy('an AWS EBS disk'),
      gcePersistentDisk: legacy('a Google Compute Engine persistent disk'),
      azureDisk: legacy('an Azure data disk'),
      azureFile: legacy('an Azure Files share'),
      cinder: legacy('an OpenStack Cinder volume'),
      cephfs: legacy('a CephFS mount'),
      rbd: legacy('a Ceph RBD block device'),
      glusterfs: legacy('a GlusterFS mount'),
      flexVolume: legacy('a volume from a FlexVolume driver script'),
      flocker: legacy('a Flocker dataset'),
      vsphereVolume: legacy('a vSphere VMDK volume'),
      quobyte: legacy('a Quobyte mount'),
      photonPersistentDisk: legacy('a VMware Photon disk'),
      portworxVolume: legacy('a Portworx volume'),
      scaleIO: legacy('a ScaleIO volume'),
      storageos: legacy('a StorageOS volume'),
    },
    EmptyDirVolumeSource: {
      $: 'A scratch directory that lives as long as the pod on its node.',
      medium:
        'Where the directory is kept: "" (the node\'s disk, the default) or "Memory" (a tmpfs, which is fast, counts against the containers\' memory limits and is lost on reboot).',
      sizeLimit: 'The most the volume may hold, e.g. "1Gi"; the pod is evicted when it holds more. Unset means no limit of its own.',
    },
    ConfigMapVolumeSource: {
      $: 'A ConfigMap presented as files, one per key.',
      name: "The ConfigMap's name, in the pod's namespace.",
      items,
      defaultMode,
      optional:
        'When true, a missing ConfigMap (or key) gives an empty volume instead of keeping the pod from starting. Defaults to false.',
    },
    SecretVolumeSource: {
      $: 'A Secret presented as files, one per key, with the decoded values.',
      secretName: "The Secret's name, in the pod's namespace.",
      items,
      defaultMode,
      optional: 'When true, a missing Secret (or key) gives an empty volume instead of keeping the pod from starting. Defaults to false.',
    },
    KeyToPath: {
      $: 'Puts one key of a ConfigMap or Secret at a chosen file path.',
      key: 'The key to project.',
      path: 'The relative file path to write it to, e.g. "conf/app.yaml"; it may not contain "..".',
      mode: "Permission bits for this file (a number, 0644 octal is 420). Defaults to the volume's defaultMode.",
    },
    PersistentVolumeClaimVolumeSource: {
      $: 'Mounts the volume bound to a PersistentVolumeClaim.',
      claimName: "The name of the PersistentVolumeClaim, in the pod's namespace.",
      readOnly: 'Mount read-only. Defaults to false.',
    },
    HostPathVolumeSource: {
      $: "A path on the node's filesystem.",
      path: 'The path on the node. A symlink is followed to its target.',
      type: 'What must exist at the path: "" (no check, the default), DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice or BlockDevice. The *OrCreate types make an empty one if needed.',
    },
    ProjectedVolumeSource: {
      $: 'Several sources projected into one directory.',
      sources: 'The sources to merge; their file paths must not collide.',
      defaultMode,
    },
    VolumeProjection: {
      $: 'One source of a projected volume; exactly one field is set.',
      configMap: 'Keys of a ConfigMap.',
      secret: 'Keys of a Secret.',
      downwardAPI: 'Fields of the pod.',
      serviceAccountToken: "A token of the pod's service account, renewed by the kubelet before it expires.",
      clusterTrustBundle: 'Certificates from ClusterTrustBundle objects, as one PEM file.',
      podCertificate: 'A private key and a certificate for the pod, issued through a PodCertificateRequest and renewed by the kubelet.',
    },
    ConfigMapProjection: {
      $: 'The keys of a ConfigMap in a projected volume.',
      name: "The ConfigMap's name.",
      items,
      optional: 'When true, a missing ConfigMap or key is not an error. Defaults to false.',
    },
    SecretProjection: {
      $: 'The keys of a Secret in a projected volume.',
      name: "The Secret's name.",
      items,
      optional: 'When true, a missing Secret or key is not an error. Defaults to false.',
    },
    ServiceAccountTokenProjection: {
      $: 'A service account token written to a file, for the pod to authenticate with.',
      path: 'The file path, relative to the mount point.',
      audience: 'Who the token is for (its "aud" claim). Defaults to the API server.',
      expirationSeconds:
        'How long the token is valid, in seconds. Defaults to 3600 (one hour), at least 600. The kubelet renews it at 80% of its life.',
    },
    ClusterTrustBundleProjection: {
      $: 'Trust anchors from ClusterTrustBundles, as a PEM file.',
      name: 'A single ClusterTrustBundle by name. Do not combine with signerName.',
      signerName: 'Take every bundle of this signer (that matches labelSelector).',
      labelSelector: 'With signerName: which bundles to take.',
      optional: 'When true, nothing found gives no file instead of an error.',
      path: 'The file path, relative to the mount point.',
    },
    PodCertificateProjection: {
      $: 'A key pair and certificate issued for the pod by a signer, renewed automatically.',
      signerName: 'The signer that issues the certificate.',
      keyType: 'The type of private key to generate, e.g. RSA3072, ECDSAP256 or ED25519.',
      maxExpirationSeconds: 'The longest certificate lifetime to ask for, in seconds. The signer may give less.',
      credentialBundlePath: 'Write the key and certificate chain together as one PEM file at this path.',
      keyPath: 'Write the private key at this path (with certificateChainPath).',
      certificateChainPath: 'Write the certificate chain at this path (with keyPath).',
      userAnnotations: 'Extra key/value pairs passed to the signer with the request.',
    },
    DownwardAPIVolumeSource: {
      $: 'Facts about the pod as files.',
      items: 'The files to create, each from a pod field or a container resource.',
      defaultMode,
    },
    DownwardAPIProjection: {
      $: 'Facts about the pod in a projected volume.',
      items: 'The files to create, each from a pod field or a container resource.',
    },
    DownwardAPIVolumeFile: {
      $: 'One file of a downward API volume.',
      path: 'The relative file path, e.g. "labels".',
      fieldRef:
        'A pod field: metadata.name, metadata.namespace, metadata.uid, metadata.labels or metadata.annotations (all of them, one per line) or one label or annotation.',
      resourceFieldRef: "A container's request or limit (limits.cpu, requests.memory, ...).",
      mode: "Permission bits of the file (a number). Defaults to the volume's defaultMode.",
    },
    EphemeralVolumeSource: {
      $: 'A PersistentVolumeClaim made for the pod and deleted with it.',
      volumeClaimTemplate: 'The claim to create, named <pod name>-<volume name>. Required.',
    },
    PersistentVolumeClaimTemplate: {
      $: 'A PersistentVolumeClaim to create: its labels and annotations, and its spec.',
      metadata: 'Labels and annotations for the claim; the name is chosen for you.',
      spec: "The claim's spec (size, access modes, storage class).",
    },
    ImageVolumeSource: {
      $: 'An OCI image or artifact mounted read-only as a volume.',
      reference: 'The image reference, as for a container image, e.g. "registry.example.com/models/llm:v1".',
      pullPolicy: 'Always, IfNotPresent or Never, as for containers. Defaults to Always for :latest, else IfNotPresent.',
    },
    CSIVolumeSource: csi,
    NFSVolumeSource: {
      $: 'An NFS mount.',
      server: 'The host name or IP of the NFS server.',
      path: 'The path exported by the server.',
      readOnly: LEGACY.readOnly,
    },
    ISCSIVolumeSource: iscsi,
    ISCSIPersistentVolumeSource: iscsi,
    FCVolumeSource: {
      $: 'A Fibre Channel disk.',
      targetWWNs: 'The world wide names of the targets.',
      lun: LEGACY.lun,
      fsType: LEGACY.fsType,
      readOnly: LEGACY.readOnly,
      wwids: 'World wide identifiers of the volume; use either these or targetWWNs with lun.',
    },
    GitRepoVolumeSource: {
      $: 'Deprecated: a directory with a git repository cloned into it.',
      repository: 'The URL of the repository.',
      revision: 'The commit to check out.',
      directory: 'The directory name to clone into; "." clones into the volume root. Defaults to the repository name.',
    },
    AWSElasticBlockStoreVolumeSource: {
      $: 'An AWS EBS disk (deprecated in-tree plugin).',
      volumeID: 'The EBS volume ID, e.g. vol-0123456789abcdef0.',
      fsType: LEGACY.fsType,
      partition: LEGACY.partition,
      readOnly: LEGACY.readOnly,
    },
    GCEPersistentDiskVolumeSource: {
      $: 'A Google Compute Engine persistent disk (deprecated in-tree plugin).',
      pdName: 'The name of the disk in GCE.',
      fsType: LEGACY.fsType,
      partition: LEGACY.partition,
      readOnly: LEGACY.readOnly,
    },
    AzureDiskVolumeSource: {
      $: 'An Azure data disk (deprecated in-tree plugin).',
      diskName: 'The name of the disk.',
      diskURI: 'The URI of the disk.',
      cachingMode: 'Host caching: None, ReadOnly or ReadWrite.',
      fsType: LEGACY.fsType,
      readOnly: LEGACY.readOnly,
      kind: 'Shared (several disks per storage account), Dedicated (one per account) or Managed (an Azure managed disk, the default).',
    },
    AzureFileVolumeSource: azureFile,
    AzureFilePersistentVolumeSource: {
      ...azureFile,
      secretNamespace: "The namespace of the Secret. Defaults to the pod's namespace.",
    },
    CephFSVolumeSource: cephfs,
    CephFSPersistentVolumeSource: cephfs,
    CinderVolumeSource: cinder,
    CinderPersistentVolumeSource: cinder,
    RBDVolumeSource: rbd,
    RBDPersistentVolumeSource: rbd,
    FlexVolumeSource: flex,
    FlexPersistentVolumeSource: flex,
    ScaleIOVolumeSource: scaleio,
    ScaleIOPersistentVolumeSource: scaleio,
    StorageOSVolumeSource: storageos,
    StorageOSPersistentVolumeSource: storageos,
    GlusterfsVolumeSource: glusterfs,
    GlusterfsPersistentVolumeSource: {
      ...glusterfs,
      endpointsNamespace: "The namespace of the Endpoints object. Defaults to the claim's namespace.",
    },
    FlockerVolumeSource: {
      $: 'A Flocker dataset (deprecated in-tree plugin).',
      datasetName: "The dataset's name (its metadata name in Flocker).",
      datasetUUID: "The dataset's UUID. Set either this or datasetName.",
    },
    VsphereVirtualDiskVolumeSource: {
      $: 'A vSphere VMDK volume (deprecated in-tree plugin).',
      volumePath: 'The path of the VMDK file.',
      fsType: LEGACY.fsType,
      storagePolicyName: 'The storage policy (SPBM) to place the volume by.',
      storagePolicyID: 'The ID of that storage policy.',
    },
    QuobyteVolumeSource: {
      $: 'A Quobyte mount (deprecated in-tree plugin).',
      registry: 'The Quobyte registry, as host:port (several separated by commas).',
      volume: 'The name of the Quobyte volume.',
      readOnly: LEGACY.readOnly,
      user: 'The user the volume is accessed as. Defaults to serviceaccount.',
      group: 'The group the volume is accessed as. Defaults to none.',
      tenant: 'The tenant that owns the volume.',
    },
    PhotonPersistentDiskVolumeSource: {
      $: 'A VMware Photon persistent disk (deprecated in-tree plugin).',
      pdID: 'The ID of the disk.',
      fsType: LEGACY.fsType,
    },
    PortworxVolumeSource: {
      $: 'A Portworx volume (deprecated in-tree plugin).',
      volumeID: LEGACY.volumeID,
      fsType: LEGACY.fsType,
      readOnly: LEGACY.readOnly,
    },
    LocalVolumeSource: {
      $: 'A disk, partition or directory on one node, for a PersistentVolume with node affinity to that node.',
      path: 'The path of the directory or device on the node.',
      fsType: 'The filesystem type, for a block device only. Empty picks one automatically.',
    },
    CSIPersistentVolumeSource: {
      $: 'A PersistentVolume provided by a CSI driver.',
      driver: 'The name of the CSI driver.',
      volumeHandle: "The driver's own identifier of the volume.",
      readOnly: 'Attach and mount read-only. Defaults to false.',
      fsType: 'The filesystem type, e.g. ext4.',
      volumeAttributes: 'Driver-specific properties of the volume.',
      controllerPublishSecretRef: 'Credentials for the driver when attaching the volume to a node.',
      nodeStageSecretRef: 'Credentials for the driver when preparing the volume on a node.',
      nodePublishSecretRef: 'Credentials for the driver when mounting the volume for a pod.',
      controllerExpandSecretRef: 'Credentials for the driver when growing the volume.',
      nodeExpandSecretRef: 'Credentials for the driver when growing the filesystem on a node.',
    },
    SecretReference: {
      $: 'A Secret by name and namespace.',
      name: "The Secret's name.",
      namespace: "The Secret's namespace.",
    },
  },
};
