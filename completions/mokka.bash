# bash completion for mokka(1)                               -*- shell-script -*-
# Subcommands, each subcommand's options, and their arguments: configs and
# suites (*.yaml), directories for --state-dir, PIDs for --pid, metric names
# for inject --set/--unset, the command after `--` for run and exec.
# Uses bash-completion's helpers (_init_completion, _filedir, _pids).

_mokka_commands='run assert exec smi lint render stats metrics inject doctor lib-path
    extract-lib version help'
_mokka_metrics='temperature memoryTemperature power utilization.gpu utilization.memory
    utilization.encoder utilization.decoder memoryUsed fanSpeed clocks.graphics clocks.sm
    clocks.memory clocks.video'

# The options of subcommand $1.
_mokka_options()
{
    local common='--quiet --color= --help' state='--state-dir= --pid='
    case $1 in
        run) echo "--config= --suite= --junit= --report= --timeout= --plugin= --no-sandbox
                   --verbose $common" ;;
        assert) echo "--suite= --node= --selector= --kubeconfig= --context= --junit= $common" ;;
        exec) echo "--config= $common" ;;
        smi) echo "-L -q --json --mock $common" ;;
        lint) echo "--strict --node= $common" ;;
        render) echo "--config= --node= --format= --profiles $common" ;;
        stats) echo "$state --json --watch= $common" ;;
        metrics) echo "$state --listen= --once $common" ;;
        inject) echo "$state --gpu= --mig= --xid= --ecc= --lost --healthy --set= --unset=
                      $common" ;;
        doctor) echo "--pid= $common" ;;
        *) echo "$common" ;;
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

    # After `--`: the program for exec, the device plugin's own arguments
    # for run (files).
    for ((i = cmdi + 1; i < cword; i++)); do
        if [[ ${words[i]} == -- ]]; then
            if [[ $cmd == exec ]]; then
                _command_offset $((i + 1))
            else
                _filedir
            fi
            return
        fi
    done

    case $prev in
        --config | -c | --suite)
            _filedir 'yaml|yml'
            return ;;
        --junit | --kubeconfig | --plugin)
            _filedir
            return ;;
        --state-dir)
            _filedir -d
            return ;;
        --pid)
            _pids
            return ;;
        --format | -f)
            COMPREPLY=($(compgen -W 'yaml json' -- "$cur"))
            return ;;
        --report)
            COMPREPLY=($(compgen -W 'json' -- "$cur"))
            return ;;
        --color | --colour)
            COMPREPLY=($(compgen -W 'auto always never' -- "$cur"))
            return ;;
        --ecc)
            COMPREPLY=($(compgen -W 'single double' -- "$cur"))
            return ;;
        --set)
            COMPREPLY=($(compgen -S = -W "$_mokka_metrics" -- "$cur"))
            compopt -o nospace
            return ;;
        --unset)
            COMPREPLY=($(compgen -W "$_mokka_metrics" -- "$cur"))
            return ;;
        --node | -n | --selector | --context | --timeout | --gpu | -g | --mig | -m | --xid | \
        --watch | -w | --listen | -l)
            return ;;
    esac
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
    esac
} &&
    complete -F _mokka mokka

# ex: filetype=sh
