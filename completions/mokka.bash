# bash completion for mokka(1)                               -*- shell-script -*-
# Subcommands, each subcommand's options, and their arguments: configs and
# suites (*.yaml), directories for --state-dir, PIDs for --pid, metric names
# for inject --set/--unset, the program for exec and after run's `--`.
# Uses bash-completion's helpers (_init_completion, _filedir, _pids,
# _command_offset).

_mokka_commands='run assert exec smi lint render stats metrics inject agent fleet container-runtime
    cdi doctor lib-path extract-lib version help'
_mokka_metrics='temperature memoryTemperature power utilization.gpu utilization.memory
    utilization.encoder utilization.decoder memoryUsed fanSpeed clocks.graphics clocks.sm
    clocks.memory clocks.video'

# The options of subcommand $1 (a trailing = marks a value).
_mokka_options()
{
    local common='--quiet --color= --help' state='--state-dir= --pid='
    case $1 in
        run) echo "--config= --suite= --junit= --report= --timeout= --register-timeout=
                   --plugin= --plugins= --add-plugin= --env= --gfd --gfd= --gfd-arg= --node= --no-sandbox
                   --restart-limit= --keep --hold --no-agent
                   --kubeconfig= --cluster --context= --verbose
                   $common" ;;
        assert) echo "--suite= --node= --selector= --kubeconfig= --context= --junit= --report=
                      --timeout= --config= --var= --state-dir= --verbose $common" ;;
        exec) echo "--config= --state-dir= --keep-state --node= $common" ;;
        smi) echo "-L --list -q --query --json --id= --mock --config= $common" ;;
        lint) echo "--strict --node= $common" ;;
        render) echo "--config= --node= --format= --labels --mig-strategy= --profiles $common" ;;
        stats) echo "$state --json --watch= $common" ;;
        metrics) echo "$state --listen= --once $common" ;;
        inject) echo "$state --gpu= --mig= --xid= --ecc= --lost --healthy --set= --unset=
                      --fabric-state= --fabric-status= --fabric-health= --fabric-clear
                      --cluster --kubeconfig= --context= --node= --selector= --all-nodes
                      --for= --name= --wait= --clear= --list --output= $common" ;;
        agent) echo "--config= --state-dir= --node= --kubeconfig= --context= --verbose $common" ;;
        fleet) echo "--nodes= --config= --pool= --node-config= --prefix= --name= --labels=
                     --mig-strategy= --no-gfd --take-over --on-stop= --for= --state-dir= --workers=
                     --stats= --kubeconfig= --context= --verbose $common" ;;
        container-runtime) echo "--runtime= --state-dir= --config= --node= --lib= --smi=
                                 --containerd-config= --name= --wrapper= --mokka= --host-root= --runtime-class
                                 $common" ;;
        cdi) echo "--output= --state-dir= --config= --node= --lib= --smi= --arch= $common" ;;
        doctor) echo "--pid= --config= --kubelet-dir= $common" ;;
        lib-path) echo "--dir $common" ;;
        version) echo "--json $common" ;;
        *) echo "$common" ;;
    esac
}

# Whether option $2 of exec takes the next word as its value.
_mokka_exec_value()
{
    case $1 in
        -c | -s | -n) return 0 ;;
        --*) [[ " $(_mokka_options exec) " == *" $1= "* ]] ;;
        *) return 1 ;;
    esac
}

# Completes the value of option $2 of subcommand $1; fails when $2 takes none.
_mokka_value()
{
    case $1:$2 in
        *:--config | run:-c | exec:-c | render:-c | smi:-c | doctor:-c | *:--suite | run:-s | run:--plugins)
            _filedir 'yaml|yml' ;;
        *:--junit | *:--kubeconfig | *:--plugin | *:--runtime | *:--lib | *:--smi | *:--wrapper | \
        *:--mokka | *:--containerd-config | cdi:--output | cdi:-o)
            _filedir ;;
        cdi:--arch)
            COMPREPLY=($(compgen -W 'x86_64 aarch64' -- "$cur")) ;;
        *:--state-dir | exec:-s | *:--kubelet-dir | doctor:-k)
            _filedir -d ;;
        *:--pid | doctor:-p)
            _pids ;;
        *:--format | render:-f)
            COMPREPLY=($(compgen -W 'yaml json' -- "$cur")) ;;
        render:--mig-strategy)
            COMPREPLY=($(compgen -W 'none single mixed' -- "$cur")) ;;
        *:--report)
            COMPREPLY=($(compgen -W 'json' -- "$cur")) ;;
        *:--color | *:--colour)
            COMPREPLY=($(compgen -W 'auto always never' -- "$cur")) ;;
        inject:--ecc)
            COMPREPLY=($(compgen -W 'single double' -- "$cur")) ;;
        inject:--output | inject:-o)
            COMPREPLY=($(compgen -W 'table json' -- "$cur")) ;;
        inject:--set)
            COMPREPLY=($(compgen -S = -W "$_mokka_metrics" -- "$cur"))
            compopt -o nospace ;;
        inject:--unset)
            COMPREPLY=($(compgen -W "$_mokka_metrics" -- "$cur")) ;;
        *:--node | lint:-n | render:-n | exec:-n | *:--selector | *:--context | *:--timeout | \
        run:-t | *:--register-timeout | *:--env | run:-e | *:--restart-limit | *:--id | \
        smi:-i | *:--gpu | inject:-g | *:--mig | inject:-m | *:--xid | *:--watch | stats:-w | \
        *:--listen | metrics:-l | inject:-n | inject:-l | inject:--for | inject:--name | \
        inject:--wait | inject:--clear | container-runtime:--name)
            ;; # free-form: nothing to offer
        *)
            return 1 ;;
    esac
}

_mokka()
{
    local cur prev words cword split
    _init_completion -s || return

    local i cmd= cmdi=0
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            -*) ;;
            *) cmd=${words[i]} cmdi=$i; break ;;
        esac
    done
    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '--help --version --quiet --color=' -- "$cur"))
            [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
        else
            COMPREPLY=($(compgen -W "$_mokka_commands" -- "$cur"))
        fi
        return
    fi

    # The program: after `--` (run, exec), or exec's first argument.
    for ((i = cmdi + 1; i < cword; i++)); do
        if [[ ${words[i]} == -- ]]; then
            _command_offset $((i + 1))
            return
        fi
        if [[ $cmd == exec && ${words[i]} != -* ]] && ! _mokka_exec_value "${words[i - 1]}"; then
            _command_offset $i
            return
        fi
    done

    _mokka_value "$cmd" "$prev" && return
    $split && return

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_mokka_options "$cmd")" -- "$cur"))
        [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
        return
    fi
    case $cmd in
        lint) _filedir 'yaml|yml' ;;
        extract-lib) _filedir -d ;;
        help) COMPREPLY=($(compgen -W "$_mokka_commands" -- "$cur")) ;;
        container-runtime) COMPREPLY=($(compgen -W 'install uninstall' -- "$cur")) ;;
        cdi) COMPREPLY=($(compgen -W 'generate' -- "$cur")) ;;
        exec) _command_offset $cword ;;
    esac
} &&
    complete -F _mokka mokka

# ex: filetype=sh
