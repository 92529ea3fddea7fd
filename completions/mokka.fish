# fish completion for mokka(1): subcommands, each subcommand's options, and
# their arguments (configs and suites *.yaml, directories for --state-dir,
# PIDs for --pid, metric names for inject --set/--unset, the program for
# exec and after run's --).

set -l mokka_commands run assert exec smi lint render stats metrics inject agent fleet container-runtime cdi doctor lib-path extract-lib version help
set -l mokka_metrics temperature memoryTemperature power utilization.gpu utilization.memory utilization.encoder utilization.decoder memoryUsed fanSpeed clocks.graphics clocks.sm clocks.memory clocks.video

function __mokka_yaml_files
    # Configs and suites, and directories to reach them.
    set -l token (commandline -ct)
    for f in $token*.yaml $token*.yml
        echo $f
    end
    __fish_complete_directories $token
end

complete -c mokka -f

# Global options and the subcommands.
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -s h -l help -d 'Show the help'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -l version -d 'Print the version'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -s q -l quiet -d 'No progress messages'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -l color -x -a 'auto always never' -d 'When to use colour'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a run -d 'Run the device plugin in a GPU-node sandbox and check suites'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a assert -d 'Check suites against real nodes'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a exec -d 'Run any program on the mock GPUs'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a smi -d 'nvidia-smi-like view of the GPUs'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a lint -d 'Check configs'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a render -d 'Print the universe a node would see'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a stats -d 'Live values, health and NVML calls'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a metrics -d 'dcgm-exporter metrics of a running mock'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a inject -d 'Raise a fault or pin a value'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a agent -d 'Apply the cluster\'s GPUFaults to this node'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a fleet -d 'Run many virtual GPU nodes against a real API server'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a doctor -d 'Check the environment'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a container-runtime -d 'OCI runtime shim for GPU containers'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a cdi -d 'Write a CDI spec (nvidia.com/gpu)'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a lib-path -d 'Path of the bundled libnvidia-ml.so.1'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a extract-lib -d 'Write the bundled library to a directory'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a version -d 'Print the version'
complete -c mokka -n "not __fish_seen_subcommand_from $mokka_commands" -a help -d 'Help for a command'

# Options every subcommand takes.
complete -c mokka -n "__fish_seen_subcommand_from $mokka_commands" -s q -l quiet -d 'No progress messages'
complete -c mokka -n "__fish_seen_subcommand_from $mokka_commands" -l color -x -a 'auto always never' -d 'When to use colour'
complete -c mokka -n "__fish_seen_subcommand_from $mokka_commands" -s h -l help -d 'Show the help of the command'

# run
complete -c mokka -n '__fish_seen_subcommand_from run' -s c -l config -x -a '(__mokka_yaml_files)' -d 'The GPU universe'
complete -c mokka -n '__fish_seen_subcommand_from run' -s s -l suite -x -a '(__mokka_yaml_files)' -d 'A suite to run'
complete -c mokka -n '__fish_seen_subcommand_from run' -l junit -r -F -d 'Write JUnit XML'
complete -c mokka -n '__fish_seen_subcommand_from run' -l report -x -a json -d 'Write the JSON report (json[=FILE])'
complete -c mokka -n '__fish_seen_subcommand_from run' -s t -l timeout -x -d 'Limit for the whole run (5m)'
complete -c mokka -n '__fish_seen_subcommand_from run' -l register-timeout -x -d 'How long the plugin may take to register'
complete -c mokka -n '__fish_seen_subcommand_from run' -l plugin -r -F -d 'The plugin binary'
complete -c mokka -n '__fish_seen_subcommand_from run' -l plugins -x -a '(__mokka_yaml_files)' -d 'The plugins of a run file'
complete -c mokka -n '__fish_seen_subcommand_from run' -l add-plugin -x -d 'NAME=COMMAND ARGS: one more plugin'
complete -c mokka -n '__fish_seen_subcommand_from run' -s e -l env -x -d 'NAME=VALUE for the plugin'
complete -c mokka -n '__fish_seen_subcommand_from run' -l node -x -d 'Node name'
complete -c mokka -n '__fish_seen_subcommand_from run' -l gfd -d 'Also run gpu-feature-discovery (--gfd=PATH)'
complete -c mokka -n '__fish_seen_subcommand_from run' -l gfd-arg -x -d 'An argument for gpu-feature-discovery'
complete -c mokka -n '__fish_seen_subcommand_from run' -l no-sandbox -d 'Use the real device-plugins directory'
complete -c mokka -n '__fish_seen_subcommand_from run' -l restart-limit -x -d 'Plugin crashes restarted before giving up'
complete -c mokka -n '__fish_seen_subcommand_from run' -l hold -d 'Keep the plugin running after the suites'
complete -c mokka -n '__fish_seen_subcommand_from run' -l no-agent -d 'With --hold in cluster mode: apply no GPUFaults'
complete -c mokka -n '__fish_seen_subcommand_from run' -l kubeconfig -r -F -d 'Cluster mode with this kubeconfig'
complete -c mokka -n '__fish_seen_subcommand_from run' -l cluster -d 'Cluster mode with KUBECONFIG or in-cluster access'
complete -c mokka -n '__fish_seen_subcommand_from run' -l context -x -d 'kubeconfig context'
complete -c mokka -n '__fish_seen_subcommand_from run' -l keep -d 'Keep the run directory'
complete -c mokka -n '__fish_seen_subcommand_from run' -s v -l verbose -d 'Show the plugin output'
complete -c mokka -n '__fish_seen_subcommand_from run; and contains -- -- (commandline -opc)' -a '(__fish_complete_subcommand --fcs-skip=2 -c --config -s --suite --junit --report -t --timeout --register-timeout --plugin -e --env --node --restart-limit --kubeconfig --context --color)'

# assert
complete -c mokka -n '__fish_seen_subcommand_from assert' -l suite -x -a '(__mokka_yaml_files)' -d 'Suite to check'
complete -c mokka -n '__fish_seen_subcommand_from assert' -l node -x -d 'Node to check'
complete -c mokka -n '__fish_seen_subcommand_from assert' -l selector -x -d 'Nodes matching a label selector (k=v)'
complete -c mokka -n '__fish_seen_subcommand_from assert' -l kubeconfig -r -F -d 'kubeconfig file'
complete -c mokka -n '__fish_seen_subcommand_from assert' -l context -x -d 'kubeconfig context'
complete -c mokka -n '__fish_seen_subcommand_from assert' -l junit -r -F -d 'Write JUnit XML'
complete -c mokka -n '__fish_seen_subcommand_from assert' -l report -x -a 'json' -d 'Write the JSON report'
complete -c mokka -n '__fish_seen_subcommand_from assert' -s t -l timeout -x -d 'Limit for the whole check'
complete -c mokka -n '__fish_seen_subcommand_from assert' -s c -l config -r -a '(__mokka_yaml_files)' -d 'The Mokka config the suites mean'
complete -c mokka -n '__fish_seen_subcommand_from assert' -l var -x -d 'A variable for the suites (NAME=VALUE)'
complete -c mokka -n '__fish_seen_subcommand_from assert' -l state-dir -x -a '(__fish_complete_directories)' -d 'Live state, for inject and set'
complete -c mokka -n '__fish_seen_subcommand_from assert' -s v -l verbose -d 'Show requests, retries and re-lists'

# exec: options, then the program
complete -c mokka -n '__fish_seen_subcommand_from exec' -s c -l config -x -a '(__mokka_yaml_files)' -d 'GPU config'
complete -c mokka -n '__fish_seen_subcommand_from exec' -s s -l state-dir -x -a '(__fish_complete_directories)' -d 'Live-state directory'
complete -c mokka -n '__fish_seen_subcommand_from exec' -s k -l keep-state -d 'Keep the fresh state directory'
complete -c mokka -n '__fish_seen_subcommand_from exec' -s n -l node -x -d 'Node name for uuid: auto'
complete -c mokka -n '__fish_seen_subcommand_from exec' -a '(__fish_complete_subcommand --fcs-skip=2 -c --config -s --state-dir -n --node --color)'

# smi
complete -c mokka -n '__fish_seen_subcommand_from smi' -s L -l list -d 'One line per GPU and MIG device'
complete -c mokka -n '__fish_seen_subcommand_from smi' -s q -l query -d 'The detailed report of every GPU'
complete -c mokka -n '__fish_seen_subcommand_from smi' -l json -d 'Everything -q shows as JSON'
complete -c mokka -n '__fish_seen_subcommand_from smi' -s i -l id -x -d 'Only these GPUs'
complete -c mokka -n '__fish_seen_subcommand_from smi' -l mock -d 'Load the mock library directly'
complete -c mokka -n '__fish_seen_subcommand_from smi' -s c -l config -x -a '(__mokka_yaml_files)' -d 'With --mock: the GPU config'

# lint
complete -c mokka -n '__fish_seen_subcommand_from lint' -s s -l strict -d 'Also warn about suspicious values'
complete -c mokka -n '__fish_seen_subcommand_from lint' -s n -l node -x -d 'Node name for derived UUIDs'
complete -c mokka -n '__fish_seen_subcommand_from lint' -a '(__mokka_yaml_files)'

# render
complete -c mokka -n '__fish_seen_subcommand_from render' -s c -l config -x -a '(__mokka_yaml_files)' -d 'GPU config'
complete -c mokka -n '__fish_seen_subcommand_from render' -s n -l node -x -d 'Node name for derived UUIDs'
complete -c mokka -n '__fish_seen_subcommand_from render' -s f -l format -x -a 'yaml json' -d 'Output format'
complete -c mokka -n '__fish_seen_subcommand_from render' -l labels -d "Print gpu-feature-discovery's labels"
complete -c mokka -n '__fish_seen_subcommand_from render' -l mig-strategy -x -a 'none single mixed' -d "GFD's MIG strategy (with --labels)"
complete -c mokka -n '__fish_seen_subcommand_from render' -l profiles -d 'List the built-in GPU profiles'

# stats, metrics, inject: the state
complete -c mokka -n '__fish_seen_subcommand_from stats metrics inject' -l state-dir -x -a '(__fish_complete_directories)' -d 'State directory of the program'
complete -c mokka -n '__fish_seen_subcommand_from stats metrics inject' -l pid -x -a '(__fish_complete_pids)' -d 'Process on the mock'
complete -c mokka -n '__fish_seen_subcommand_from stats' -s j -l json -d 'JSON output'
complete -c mokka -n '__fish_seen_subcommand_from stats' -s w -l watch -x -d 'Refresh every SECONDS'
complete -c mokka -n '__fish_seen_subcommand_from metrics' -s l -l listen -x -d 'Address to serve on (127.0.0.1:9400)'
complete -c mokka -n '__fish_seen_subcommand_from metrics' -l once -d 'Print the metrics and exit'

# inject
complete -c mokka -n '__fish_seen_subcommand_from inject' -s g -l gpu -x -d 'GPU index'
complete -c mokka -n '__fish_seen_subcommand_from inject' -s m -l mig -x -d 'MIG device index'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l xid -x -d 'Raise an XID error'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l ecc -x -a 'single double' -d 'Raise an ECC error'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l lost -d 'The GPU falls off the bus'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l healthy -d 'Clear the fault'
set -l mokka_set_args $mokka_metrics=
complete -c mokka -n '__fish_seen_subcommand_from inject' -l set -x -a "$mokka_set_args" -d 'Pin a live value (METRIC=VALUE)'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l unset -x -a "$mokka_metrics" -d 'Let a metric follow the config'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l fabric-state -x -a 'notStarted inProgress completed' -d 'NVLink fabric registration state'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l fabric-status -x -a 'success notReady timeout unknown' -d 'NVLink fabric registration status'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l fabric-health -x -a 'none degradedBandwidth routeRecovery routeUnhealthy accessTimeoutRecovery' -d 'NVLink fabric health conditions'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l fabric-clear -d 'Back to the config\'s fabric'
# agent
complete -c mokka -n '__fish_seen_subcommand_from agent' -s c -l config -r -F -d 'GPU config of a new state'
complete -c mokka -n '__fish_seen_subcommand_from agent' -s s -l state-dir -x -a '(__fish_complete_directories)' -d 'Live-state directory'
complete -c mokka -n '__fish_seen_subcommand_from agent' -s n -l node -x -d 'This node'
complete -c mokka -n '__fish_seen_subcommand_from agent' -l kubeconfig -r -F -d 'Cluster access'
complete -c mokka -n '__fish_seen_subcommand_from agent' -l context -x -d 'Kubeconfig context'
complete -c mokka -n '__fish_seen_subcommand_from agent' -s v -l verbose -d 'Requests and watches too'
# fleet
complete -c mokka -n '__fish_seen_subcommand_from fleet' -s N -l nodes -x -d 'How many nodes'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -s c -l config -r -F -d 'The nodes\' GPU config'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -l pool -x -d 'A pool: NAME=COUNT[:FILE]'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -l node-config -x -a '(__fish_complete_directories)' -d 'NODE.yaml configs of single nodes'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -l prefix -x -d 'Node names start so'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -l name -x -d 'The fleet\'s name'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -l labels -x -d 'More labels on every node'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -l mig-strategy -x -a 'none single mixed' -d 'The plugin\'s MIG strategy'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -l no-gfd -d 'Leave out GFD\'s labels'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -l take-over -d 'Take nodes of its names that are not its own'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -l on-stop -x -a 'delete keep' -d 'What becomes of the nodes'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -l for -x -d 'Stop after this long'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -l state-dir -x -a '(__fish_complete_directories)' -d 'The nodes\' live states'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -l workers -x -d 'Connections for writes'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -l stats -r -F -d 'The fleet\'s numbers as JSON'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -l kubeconfig -r -F -d 'Cluster access'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -l context -x -d 'Kubeconfig context'
complete -c mokka -n '__fish_seen_subcommand_from fleet' -s v -l verbose -d 'Requests and watches too'
# inject --cluster: GPUFaults for the nodes' agents
complete -c mokka -n '__fish_seen_subcommand_from inject' -l cluster -d 'A GPUFault through the API server'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l kubeconfig -r -F -d 'Cluster access'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l context -x -d 'Kubeconfig context'
complete -c mokka -n '__fish_seen_subcommand_from inject' -s n -l node -x -d 'This node (cluster)'
complete -c mokka -n '__fish_seen_subcommand_from inject' -s l -l selector -x -d 'Nodes with these labels (cluster)'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l all-nodes -d 'Every node that runs an agent'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l for -x -d 'The fault expires after DURATION'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l name -x -d 'The GPUFault name'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l wait -x -d 'Wait until applied or cleared'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l clear -x -d 'Delete this GPUFault'
complete -c mokka -n '__fish_seen_subcommand_from inject' -l list -d 'The GPUFaults and how far each got'
complete -c mokka -n '__fish_seen_subcommand_from inject' -s o -l output -x -a 'table json' -d 'The --list format'

# container-runtime, cdi
set -l ctr '__fish_seen_subcommand_from container-runtime'
complete -c mokka -n $ctr -x -a 'install uninstall'
complete -c mokka -n $ctr -l runtime -r -F -d 'The OCI runtime to exec'
complete -c mokka -n "$ctr; or __fish_seen_subcommand_from cdi" -l state-dir -x -a '(__fish_complete_directories)' -d "The node's live state"
complete -c mokka -n "$ctr; or __fish_seen_subcommand_from cdi" -l config -x -a '(__mokka_yaml_files)' -d "The universe's config"
complete -c mokka -n "$ctr; or __fish_seen_subcommand_from cdi" -l node -x -d 'The node name of the UUIDs'
complete -c mokka -n "$ctr; or __fish_seen_subcommand_from cdi" -l lib -r -F -d "Mokka's library"
complete -c mokka -n "$ctr; or __fish_seen_subcommand_from cdi" -l smi -r -F -d 'The nvidia-smi twin'
complete -c mokka -n $ctr -l containerd-config -r -F -d "containerd's config.toml"
complete -c mokka -n $ctr -l name -x -d 'The runtime handler'
complete -c mokka -n $ctr -l wrapper -r -F -d 'The program containerd runs'
complete -c mokka -n $ctr -l mokka -r -F -d "mokka's path on the host"
complete -c mokka -n $ctr -l host-root -r -a '(__fish_complete_directories)' -d "Where the node's / is mounted"
complete -c mokka -n $ctr -l runtime-class -d 'Print the RuntimeClass manifest'
complete -c mokka -n '__fish_seen_subcommand_from cdi' -x -a generate
complete -c mokka -n '__fish_seen_subcommand_from cdi' -s o -l output -r -F -d 'Write the spec here'
complete -c mokka -n '__fish_seen_subcommand_from cdi' -l arch -x -a 'x86_64 aarch64' -d 'The library directory of this architecture'

# doctor, lib-path, version
complete -c mokka -n '__fish_seen_subcommand_from doctor' -s p -l pid -x -a '(__fish_complete_pids)' -d 'Also check this running process'
complete -c mokka -n '__fish_seen_subcommand_from doctor' -s c -l config -x -a '(__mokka_yaml_files)' -d 'The config to check'
complete -c mokka -n '__fish_seen_subcommand_from doctor' -s k -l kubelet-dir -x -a '(__fish_complete_directories)' -d 'Also check the plugin sockets in DIR'
complete -c mokka -n '__fish_seen_subcommand_from lib-path' -l dir -d 'Print the directory instead'
complete -c mokka -n '__fish_seen_subcommand_from version' -l json -d 'One JSON object'

# extract-lib, help
complete -c mokka -n '__fish_seen_subcommand_from extract-lib' -x -a '(__fish_complete_directories)'
complete -c mokka -n '__fish_seen_subcommand_from help' -x -a "$mokka_commands"
