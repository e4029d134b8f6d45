// `ksim chaos --help`: every action, target form and flag in one screen.
import { COMPONENT_FORMS } from './targets.ts';

export const CHAOS_USAGE = `Usage: ksim chaos ACTION [TARGET] [flags] [--data-dir DIR]

Injects one fault into the cluster that \`ksim up\` runs in DIR (--data-dir, else
$KSIM_DATA_DIR, else .ksim), prints what was done and the fault's id, and records
a ChaosInjected Event (source ksim-chaos). Recover with \`ksim chaos recover ID\`.

Processes (COMPONENT: ${COMPONENT_FORMS}):
  kill COMPONENT              SIGKILL
  stop COMPONENT              SIGTERM; it stays stopped until started
  start COMPONENT             start a stopped or killed component
  pause COMPONENT             SIGSTOP                 resume COMPONENT   SIGCONT
  restart COMPONENT           stop, then start

Nodes:
  partition node/NAME         its kubelet keeps its Pods but cannot reach the API server
  heal node/NAME              undo partition or fail
  fail node/NAME              power off: its containers stop
  pressure node/NAME memory|disk|pid
                              the condition, its taint and kubelet's evictions

API server (each fault limited to the requests that match --user-agent PREFIX,
--user NAME, --verb VERB, --resource PLURAL[/SUB] when given):
  apiserver --latency 200ms[,50ms]   added latency [, uniform jitter]
            --error-rate 0.1 [--error-code 500|429|409|504]
                                     refuse that fraction with kube's Status for the code
            --watch-delay 2s         send watch events that much later
            --drop-watches           close every open watch now (clients relist)
            --compact                compact history: the next resume gets 410 Gone
            --clear                  remove every API server fault

One component's watches:
  watch COMPONENT --delay 2s | --hold | --drop
                              delay its events, hold them back (a stale view), or drop
                              its watches so it must relist

Pods (kubelet restarts a killed container per restartPolicy):
  kill pod/NS/NAME [--container C]
  delete pod/NS/NAME
  kill|delete pods [-n NS | -A] [-l SELECTOR] [--mode MODE [--value N]] [--container C]
      MODE as Chaos Mesh's: one (default; one at random), all, fixed (N at random),
      fixed-percent (N% rounded down), random-max-percent (a random count up to N%);
      -n defaults to "default"

Clocks:
  skew COMPONENT +30s|-5s     that component's clock runs ahead or behind

Faults in effect:
  list                        the active faults, as a table
  recover [FAULT-ID]          undo one fault, or every fault
  run FILE.yaml [flags]       run a declarative experiment (ksim chaos run --help)

Flags of every fault:
  --duration 30s              undo the fault after this long (ChaosRecovered)
  --seed N                    seed of the random choices (pods, error draws)
  --data-dir DIR              the cluster's data directory

Durations are Go's: 200ms, 2s, 1m30s, +30s, -5s.
Exit status: 0 done, 1 the cluster refused or is not running, 2 a bad command line.
`;
