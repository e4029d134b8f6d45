// core/v1, containers: the Container spec (image, command, ports, env,
// resources, mounts, probes, lifecycle hooks, security) and its status.
import type { GroupTable, TypeTable } from './types.ts';

const probeKinds = (when: string): string => `${when} It runs one of exec, httpGet, tcpSocket or grpc every periodSeconds.`;

const container: TypeTable = {
  $: 'One container of a pod: the image to run, how to start it and what it gets (environment, ports, volumes, resources, probes).',
  name: 'The container\'s name, unique in the pod (a DNS label: lowercase letters, digits and "-"). kubectl logs -c and exec -c use it.',
  image: 'The image to run, e.g. "nginx:1.27" or "registry.example.com/team/app@sha256:...". Without a tag, ":latest" is meant.',
  command:
    'The program to run and its leading arguments, replacing the image\'s ENTRYPOINT. Not run in a shell: use ["sh", "-c", "..."] for shell syntax. $(VAR) is replaced by the container\'s environment variables.',
  args: "Arguments to the command, replacing the image's CMD. $(VAR) is replaced by environment variables; $$(VAR) keeps the text as is.",
  workingDir: "The directory the command starts in. Defaults to the image's working directory.",
  ports:
    'Ports the container listens on. Mostly informational (a process can listen on any port without it), but names given here can be used by Services (targetPort) and probes.',
  envFrom:
    'Sources that turn every key of a ConfigMap or Secret into an environment variable. Variables in env win over these when names clash.',
  env: 'Environment variables for the container, each a literal value or one taken from a ConfigMap, Secret, pod field or resource.',
  resources:
    'CPU and memory (and other) requests, which the scheduler reserves on a node, and limits, which the container may not exceed (more CPU is throttled, more memory is killed with OOMKilled).',
  resizePolicy: "For in-place resizes of this container's resources: whether each resource can change without restarting the container.",
  restartPolicy:
    'Only for init containers: "Always" makes it a sidecar that starts before the main containers, keeps running beside them and is restarted when it exits. Otherwise a container follows the pod\'s restartPolicy.',
  restartPolicyRules:
    'Rules that override the restart policy by exit code, e.g. restart on exit code 42 even with restartPolicy Never. Checked in order; the first match wins.',
  volumeMounts: "Where the pod's volumes appear in the container's filesystem.",
  volumeDevices: 'Raw block volumes (PVCs with volumeMode Block) presented to the container as device files.',
  livenessProbe: probeKinds(
    'A check of whether the container is still working. After failureThreshold failures in a row the kubelet kills the container, which is restarted according to the restart policy.',
  ),
  readinessProbe: probeKinds(
    'A check of whether the container can serve traffic. While it fails the pod is not Ready and is taken out of Service endpoints; the container is not restarted.',
  ),
  startupProbe: probeKinds(
    'A check that the application has started. Liveness and readiness probes wait until it succeeds once; if it fails failureThreshold times the container is killed. Use it for slow starters.',
  ),
  lifecycle: 'Hooks the kubelet runs right after the container starts (postStart) and before it is stopped (preStop), and the stop signal.',
  terminationMessagePath:
    'A file the container may write a short message to before it exits (at most 4096 bytes); it shows up in the container status. Defaults to /dev/termination-log.',
  terminationMessagePolicy:
    'Where the termination message comes from: File (only terminationMessagePath, the default) or FallbackToLogsOnError (the end of the log when the file is empty and the container failed).',
  imagePullPolicy:
    'When the kubelet pulls the image: Always (check the registry on every start), IfNotPresent (only when the node lacks it) or Never. Defaults to Always for a :latest or missing tag, else IfNotPresent.',
  securityContext:
    "Security settings for this container (user, capabilities, privilege, read-only root). They override the pod's securityContext.",
  stdin: 'Keep a stdin open for the container, so that `kubectl attach -i` can write to it. Defaults to false.',
  stdinOnce:
    'With stdin: close stdin after the first attached client disconnects, so the process sees end of file, and do not reopen it. Defaults to false.',
  tty: 'Give the container a terminal (with stdin, for interactive shells such as `kubectl run -it`). Defaults to false.',
};

export const coreContainer: GroupTable = {
  prefix: 'io.k8s.api.core.v1',
  types: {
    Container: container,
    EphemeralContainer: {
      ...container,
      $: 'A temporary container added to a running pod to debug it (kubectl debug). It has no ports, probes or resources and is never restarted.',
      ports: 'Not allowed for ephemeral containers.',
      resources: 'Not allowed: ephemeral containers use the resources the pod already has.',
      livenessProbe: 'Not allowed for ephemeral containers.',
      readinessProbe: 'Not allowed for ephemeral containers.',
      startupProbe: 'Not allowed for ephemeral containers.',
      lifecycle: 'Not allowed for ephemeral containers.',
      restartPolicy: 'Not allowed: an ephemeral container is never restarted.',
      restartPolicyRules: 'Not allowed: an ephemeral container is never restarted.',
      resizePolicy: 'Not allowed for ephemeral containers.',
      targetContainerName:
        "The container whose process namespace the debug container joins, so it can see that container's processes even without shareProcessNamespace.",
    },
    ContainerPort: {
      $: 'A network port a container listens on.',
      name: 'A name for the port (at most 15 characters, lowercase letters, digits and "-"), unique in the pod, that Services and probes can refer to.',
      containerPort: 'The port number the container listens on, 1 to 65535. Required.',
      protocol: 'TCP (the default), UDP or SCTP.',
      hostPort: "Also expose the port on the node's IP at this number. Rarely needed; it limits where the pod can be scheduled.",
      hostIP: 'The node IP to bind hostPort on. Defaults to all addresses.',
    },
    EnvVar: {
      $: 'One environment variable of a container.',
      name: "The variable's name.",
      value:
        'A literal value. $(OTHER) expands to a variable defined earlier in the list; an undefined reference is left as it is. Defaults to "". Do not combine with valueFrom.',
      valueFrom: 'Take the value from a ConfigMap key, a Secret key, a field of the pod or a container resource instead.',
    },
    EnvVarSource: {
      $: "Where an environment variable's value comes from; exactly one field is set.",
      configMapKeyRef: "One key of a ConfigMap in the pod's namespace.",
      secretKeyRef: "One key of a Secret in the pod's namespace (the decoded value).",
      fieldRef:
        "A field of the pod: metadata.name, metadata.namespace, metadata.uid, metadata.labels['KEY'], metadata.annotations['KEY'], spec.nodeName, spec.serviceAccountName, status.hostIP, status.podIP and a few others.",
      resourceFieldRef: 'A request or limit of a container, such as limits.memory or requests.cpu, scaled by a divisor.',
      fileKeyRef: "A key of an env file (KEY=value lines) in one of the pod's emptyDir volumes, written there e.g. by an init container.",
    },
    EnvFromSource: {
      $: 'A ConfigMap or Secret whose keys all become environment variables.',
      prefix: 'Text put in front of every variable name made from the source, e.g. "DB_".',
      configMapRef: 'The ConfigMap to read.',
      secretRef: 'The Secret to read.',
    },
    ConfigMapEnvSource: {
      $: 'A ConfigMap used as a source of environment variables.',
      name: "The ConfigMap's name, in the pod's namespace.",
      optional:
        'When true, a missing ConfigMap is not an error (no variables are added). Defaults to false: the container cannot start without it.',
    },
    SecretEnvSource: {
      $: 'A Secret used as a source of environment variables.',
      name: "The Secret's name, in the pod's namespace.",
      optional: 'When true, a missing Secret is not an error. Defaults to false: the container cannot start without it.',
    },
    ConfigMapKeySelector: {
      $: 'One key of a ConfigMap.',
      name: "The ConfigMap's name, in the pod's namespace.",
      key: 'The key to read.',
      optional: 'When true, a missing ConfigMap or key leaves the variable unset instead of blocking the container. Defaults to false.',
    },
    SecretKeySelector: {
      $: 'One key of a Secret.',
      name: "The Secret's name, in the pod's namespace.",
      key: 'The key to read.',
      optional: 'When true, a missing Secret or key leaves the variable unset instead of blocking the container. Defaults to false.',
    },
    FileKeySelector: {
      $: 'One key of an env file (lines of KEY=value) in a volume of the pod.',
      volumeName: 'The pod volume that holds the file; it must be an emptyDir.',
      path: 'The file\'s path inside the volume, relative, without "..".',
      key: 'The variable name to look up in the file.',
      optional: 'When true, a missing file or key leaves the variable unset. Defaults to false (the container fails to start).',
    },
    ObjectFieldSelector: {
      $: 'A field of the pod, named by its path.',
      fieldPath: 'The path of the field, e.g. metadata.name or status.podIP.',
      apiVersion: 'The version the path is written in. Defaults to "v1".',
    },
    ResourceFieldSelector: {
      $: 'A resource request or limit of a container, as a number.',
      containerName: 'The container to read; required in volumes, defaults to the current container in env.',
      resource:
        'Which value: limits.cpu, limits.memory, limits.ephemeral-storage, requests.cpu, requests.memory or requests.ephemeral-storage.',
      divisor: 'The unit the value is given in, e.g. "1m" for millicores or "1Mi" for mebibytes. Defaults to "1".',
    },
    ResourceRequirements: {
      $: 'Compute resources a container asks for (requests) and may not exceed (limits).',
      requests:
        'The amounts the scheduler reserves on the node, e.g. {cpu: 250m, memory: 64Mi}. A missing request defaults to the limit if one is set.',
      limits:
        'The most the container may use, e.g. {cpu: "1", memory: 128Mi}. CPU above the limit is throttled; memory above it gets the container killed (OOMKilled).',
      claims: "Which of the pod's resourceClaims (dynamic resources such as devices) this container uses, by name.",
    },
    ResourceClaim: {
      $: "A reference from a container to one of the pod's resource claims.",
      name: "The name of an entry in the pod's spec.resourceClaims.",
      request: 'One request of that claim to use; empty means all of it.',
    },
    VolumeMount: {
      $: "Mounts one of the pod's volumes into the container.",
      name: 'The name of the pod volume (spec.volumes) to mount.',
      mountPath: 'Where in the container the volume appears, an absolute path such as /data. It must not contain ":".',
      readOnly: 'Mount read-only. Defaults to false.',
      recursiveReadOnly:
        'With readOnly: whether sub-mounts are read-only too: Disabled (the default), Enabled (fail if the node cannot do it) or IfPossible.',
      subPath: 'Mount only this sub-directory (or file) of the volume instead of its root. Defaults to "" (the whole volume).',
      subPathExpr:
        "Like subPath, but $(VAR) is replaced by the container's environment variables, e.g. $(POD_NAME). Do not combine with subPath.",
      mountPropagation:
        'Whether mounts made later are shared between the node and the container: None (the default), HostToContainer (the container sees new host mounts) or Bidirectional (privileged containers only).',
    },
    VolumeDevice: {
      $: 'A raw block volume presented inside the container as a device.',
      name: 'The name of a PVC volume of the pod.',
      devicePath: 'The device file path in the container, e.g. /dev/xvda.',
    },
    Probe: {
      $: 'A periodic health check of a container, by the kubelet: run a command, make an HTTP or gRPC request, or open a TCP connection.',
      exec: 'Run a command in the container: exit status 0 is success.',
      httpGet: 'Make an HTTP GET request to the container: any status from 200 to 399 is success.',
      tcpSocket: 'Open a TCP connection to a port of the container: success if it connects.',
      grpc: 'Call the standard gRPC health-checking service on a port of the container: SERVING is success.',
      initialDelaySeconds: 'Seconds to wait after the container starts before the first check. Defaults to 0.',
      timeoutSeconds: 'Seconds after which a check counts as failed if it has not answered. Defaults to 1; at least 1.',
      periodSeconds: 'Seconds between checks. Defaults to 10; at least 1.',
      successThreshold:
        'Successes in a row needed to count as passing again after a failure. Defaults to 1, and must be 1 for liveness and startup probes.',
      failureThreshold:
        'Failures in a row after which the probe counts as failed (the container is restarted for liveness and startup, made unready for readiness). Defaults to 3.',
      terminationGracePeriodSeconds:
        "For liveness and startup probes: seconds the container gets to stop after a failed probe, instead of the pod's terminationGracePeriodSeconds.",
    },
    ExecAction: {
      $: 'Run a command inside the container.',
      command:
        'The command and its arguments, run in the container\'s root directory and not in a shell (use ["sh", "-c", "..."] for pipes). Exit status 0 means success.',
    },
    HTTPGetAction: {
      $: 'An HTTP GET request to the container.',
      path: 'The request path, e.g. /healthz. Defaults to /.',
      port: "The port, as a number (1 to 65535) or the name of one of the container's ports. Required.",
      host: "The host name or IP to connect to. Defaults to the pod's IP; to send a Host header, use httpHeaders instead.",
      scheme: 'HTTP (the default) or HTTPS. With HTTPS the certificate is not verified.',
      httpHeaders: 'Extra request headers. Repeated names are allowed.',
    },
    HTTPHeader: {
      $: 'One HTTP header.',
      name: 'The header name, e.g. "X-Probe" or "Host".',
      value: 'The header value.',
    },
    TCPSocketAction: {
      $: 'Open a TCP connection to the container.',
      port: "The port, as a number (1 to 65535) or the name of one of the container's ports. Required.",
      host: "The host name or IP to connect to. Defaults to the pod's IP.",
    },
    GRPCAction: {
      $: 'A call to the gRPC health-checking protocol (grpc.health.v1.Health/Check) of the container.',
      port: 'The port number of the gRPC server, 1 to 65535 (a name is not accepted). Required.',
      service: 'The service name to ask about. Defaults to "" (the server as a whole).',
    },
    Lifecycle: {
      $: "Hooks around a container's start and stop.",
      postStart:
        'Runs right after the container is created, at the same time as its entrypoint. If it fails the container is killed and restarted per the restart policy; the container is not Running until it finishes.',
      preStop:
        'Runs when the container is about to be stopped (pod deletion, failed liveness probe, preemption), before the stop signal is sent. It counts against the grace period.',
      stopSignal:
        "The signal sent to stop the container, e.g. SIGINT. Defaults to the image's STOPSIGNAL, else SIGTERM. Needs spec.os.name set.",
    },
    LifecycleHandler: {
      $: 'An action for a lifecycle hook; exactly one field is set.',
      exec: 'Run a command inside the container.',
      httpGet: 'Make an HTTP GET request to the container.',
      tcpSocket:
        'Deprecated and not supported for hooks: it is accepted only so that old objects still read, and the hook fails when it runs.',
      sleep: 'Wait a number of seconds, e.g. in preStop to let load balancers stop sending traffic first.',
    },
    SleepAction: { $: 'Wait before going on.', seconds: 'How many seconds to sleep. Required; zero or more.' },
    SecurityContext: {
      $: "Security settings of one container. Fields also in the pod's securityContext override it for this container.",
      capabilities: "Linux capabilities to add to or drop from the runtime's default set.",
      privileged: 'Run as a privileged container: nearly the same access to the node as root on the node itself. Defaults to false.',
      seLinuxOptions: 'The SELinux context of the container.',
      windowsOptions: 'Windows-specific settings; ignored on Linux.',
      runAsUser: "The user ID the process runs as. Defaults to the image's user.",
      runAsGroup: "The primary group ID of the process. Defaults to the runtime's default.",
      runAsNonRoot: 'When true, the kubelet refuses to start the container if it would run as user 0.',
      readOnlyRootFilesystem: "Mount the container's root filesystem read-only; write only to volumes. Defaults to false.",
      allowPrivilegeEscalation:
        'Whether a process may gain more privileges than its parent (setuid binaries, no_new_privs off). Always true when privileged or with CAP_SYS_ADMIN.',
      procMount: 'How /proc is mounted: Default (with the usual paths masked and read-only) or Unmasked.',
      seccompProfile: 'The seccomp profile of this container.',
      appArmorProfile: 'The AppArmor profile of this container.',
    },
    Capabilities: {
      $: "Linux capabilities added to and removed from a container's default set.",
      add: 'Capabilities to add, e.g. NET_ADMIN (without the CAP_ prefix).',
      drop: 'Capabilities to remove, e.g. ALL to start from none.',
    },
    ContainerResizePolicy: {
      $: 'Whether a resource of a container can be resized in place.',
      resourceName: 'The resource: cpu or memory.',
      restartPolicy: 'NotRequired (the default: apply the new value to the running container) or RestartContainer (restart it to apply).',
    },
    ContainerRestartRule: {
      $: 'A rule that decides by exit code whether a container that exited is restarted.',
      action: 'What to do when the rule matches; "Restart" restarts the container whatever the pod\'s restartPolicy says.',
      exitCodes: 'The exit codes the rule matches.',
    },
    ContainerRestartRuleOnExitCodes: {
      $: 'A set of exit codes.',
      operator: 'In (the exit code is one of values) or NotIn.',
      values: 'The exit codes, at most 255 distinct ones.',
    },
    ContainerStatus: {
      $: 'What the kubelet observed about one container.',
      name: "The container's name, as in the pod spec.",
      state: 'The current state: waiting, running or terminated, with details.',
      lastState:
        'The state the container was in before its last restart, often the terminated state with the exit code and reason of the crash.',
      ready: 'Whether the container passes its readiness probe (true when it has none and is running).',
      started: 'Whether the container has started and passed its startup probe, if any.',
      restartCount: 'How many times the container has been restarted. It drives the back-off between restarts.',
      image: 'The image the container runs, as the runtime names it (may differ from the spec, e.g. with a registry prefix).',
      imageID: "The image's digest, e.g. docker.io/library/nginx@sha256:...",
      containerID: "The runtime's identifier of the container, as <runtime>://<id>.",
      allocatedResources: 'The resources the node has set aside for the container.',
      resources: 'The requests and limits the running container has (may lag behind the spec during a resize).',
      volumeMounts: 'The volumes mounted in the container, as they are mounted.',
      user: "The user and groups the container's first process actually runs with.",
      allocatedResourcesStatus: 'The health of the devices assigned to the container.',
      stopSignal: 'The signal that will be sent to stop the container.',
    },
    ContainerState: {
      $: 'The state of a container; exactly one field is set. Without one, the container is waiting.',
      waiting: 'Not running yet, or between restarts, with the reason (ContainerCreating, ImagePullBackOff, CrashLoopBackOff, ...).',
      running: 'Running, since startedAt.',
      terminated: 'Exited, with its exit code and reason.',
    },
    ContainerStateWaiting: {
      $: 'A container that is not running yet.',
      reason: 'Why it waits, e.g. ContainerCreating, ErrImagePull, ImagePullBackOff, CrashLoopBackOff, CreateContainerConfigError.',
      message: 'Details of why it waits.',
    },
    ContainerStateRunning: { $: 'A running container.', startedAt: 'When the container last (re)started.' },
    ContainerStateTerminated: {
      $: 'A container that has exited.',
      exitCode: 'The exit status of the process: 0 is success; 137 is 128+9, killed by SIGKILL (often OOMKilled).',
      signal: 'The signal that ended the process, if any.',
      reason: 'A short reason, e.g. Completed, Error, OOMKilled.',
      message: 'Details, such as the termination message.',
      startedAt: 'When this run of the container started.',
      finishedAt: 'When it exited.',
      containerID: "The runtime's identifier of the container that exited.",
    },
    ContainerUser: { $: 'The identity a container process runs with.', linux: 'The Linux user and groups.' },
    LinuxContainerUser: {
      $: 'A Linux user identity.',
      uid: 'The user ID.',
      gid: 'The primary group ID.',
      supplementalGroups: 'The supplementary group IDs.',
    },
    ResourceStatus: {
      $: 'The health of the devices behind one resource of a container.',
      name: 'The resource name, e.g. a device plugin resource or "claim:<name>/<request>".',
      resources: 'The health of each device.',
    },
    ResourceHealth: {
      $: 'The health of one device.',
      resourceID: "The device's identifier.",
      health: 'Healthy, Unhealthy or Unknown.',
    },
    VolumeMountStatus: {
      $: 'A volume as it is mounted in a container.',
      name: "The volume's name.",
      mountPath: 'Where it is mounted.',
      readOnly: 'Whether it is mounted read-only.',
      recursiveReadOnly: 'Whether sub-mounts are read-only too: Disabled or Enabled.',
    },
  },
};
