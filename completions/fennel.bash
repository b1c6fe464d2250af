# bash completion for fennel: subcommands, each subcommand's options, generator names
# after --generate, model and format names, and file names elsewhere. The lists come
# from the fennel being completed (`fennel list`, `fennel COMMAND --help`), so they are
# never out of date. Installed by `meson install` into bash-completion's directory.

# Generator or network model names from `fennel list`: the indented names of a section.
_fennel_list_section()
{
    local fennel=$1 section=$2
    "$fennel" list 2>/dev/null | awk -v section="$section" '
        /^[a-z]/ { inside = index($0, section) == 1; next }
        inside && /^  [a-z0-9]/ { print $1 }'
}

# The formats `generate --format` writes: the ones its error for an unknown format names,
# which come from fennel's table of formats.
_fennel_formats()
{
    "$1" generate send --format '?' 2>&1 | sed -n 's/.*(known: \(.*\))$/\1/p' | tr -d ,
}

_fennel()
{
    local cur prev fennel=${COMP_WORDS[0]}
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    local commands="run generate convert validate verify schedules sweep plot tune fit compare list"

    if ((COMP_CWORD == 1)); then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    local command=${COMP_WORDS[1]}

    case $prev in
    -g | --generate | --generator)
        if [[ $command == generate ]]; then
            return
        fi
        COMPREPLY=($(compgen -W "$(_fennel_list_section "$fennel" generators)" -- "$cur"))
        return
        ;;
    --network)
        COMPREPLY=($(compgen -W "$(_fennel_list_section "$fennel" 'network models')" -- "$cur"))
        return
        ;;
    --ompi-version)
        COMPREPLY=($(compgen -W "3.0 3.1 4.0 4.1 5.0 6.0 main" -- "$cur"))
        return
        ;;
    -c | --collective)
        COMPREPLY=($(compgen -W "allreduce reduce bcast allgather reduce-scatter scatter gather barrier alltoall" -- "$cur"))
        return
        ;;
    -f | --format)
        if [[ $command == fit || $command == compare ]]; then
            COMPREPLY=($(compgen -W "auto csv osu imb nccl netgauge calibrate mpi-latency nxnlatbw" -- "$cur"))
            return
        fi
        if [[ $command == tune ]]; then
            COMPREPLY=($(compgen -W "csv json ompi nccl" -- "$cur"))
            return
        fi
        COMPREPLY=($(compgen -W "$(_fennel_formats "$fennel")" -- "$cur"))
        return
        ;;
    --style)
        COMPREPLY=($(compgen -W "tableau okabe-ito grey" -- "$cur"))
        return
        ;;
    --kind)
        COMPREPLY=($(compgen -W "line box hist cdf" -- "$cur"))
        return
        ;;
    --statistic)
        COMPREPLY=($(compgen -W "min median mean" -- "$cur"))
        return
        ;;
    --segments)
        COMPREPLY=($(compgen -W "auto 1 2 3 4" -- "$cur"))
        return
        ;;
    --nic)
        COMPREPLY=($(compgen -W "own shared" -- "$cur"))
        return
        ;;
    --duplex)
        COMPREPLY=($(compgen -W "full half" -- "$cur"))
        return
        ;;
    --progress)
        COMPREPLY=($(compgen -W "auto always never" -- "$cur"))
        return
        ;;
    --schedule)
        COMPREPLY=($(compgen -W "heuristic rd" -- "$cur"))
        return
        ;;
    --jobs)
        # run --jobs names a jobs file; sweep --jobs a thread count.
        if [[ $command == run ]]; then
            COMPREPLY=($(compgen -f -X '!*.yaml' -- "$cur") $(compgen -d -- "$cur"))
            return
        fi
        return
        ;;
    -m | --model)
        COMPREPLY=($(compgen -f -X '!*.yaml' -- "$cur") $(compgen -d -- "$cur"))
        return
        ;;
    -o | --output | --from | --program | --sweep | --heatmap | --tasks | --links | --links-picture | --repeats | --finishes | --timeline | --trace | --dag | --dot | --plot)
        COMPREPLY=($(compgen -f -- "$cur"))
        return
        ;;
    --library)
        COMPREPLY=($(compgen -W "ompi-1.6 ompi-3 ompi-4 ompi-5 mpich-3 mpich-4 nccl" -- "$cur"))
        return
        ;;
    --collective)
        COMPREPLY=($(compgen -W "allreduce bcast" -- "$cur"))
        return
        ;;
    -n | --ranks | --size | --root | --rounds | --width | --picture-width | --radix | --ppn | \
        --partitions | --threshold | --variant | --segment | --parallel | --seed | --repeat | --stream-tasks | \
        --max-tasks | -s | --set | --time-window | --ranks-shown | -j | --shard | -x | \
        --x | -y | --y | --by | -k | --limit | \
        --candidates | --height | --picture-height | --where | --title | --picture-size | --collective-algorithm | --slice | --bins | --link-interval)
        return
        ;;
    esac

    if [[ $cur == -* ]]; then
        local options
        options=$("$fennel" "$command" --help 2>/dev/null | grep -oE -- '--[a-z][a-z-]*' | sort -u)
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
        return
    fi
    # The generate command's argument is a generator; everything else takes files.
    if [[ $command == generate ]]; then
        COMPREPLY=($(compgen -W "$(_fennel_list_section "$fennel" generators)" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
}

complete -o filenames -F _fennel fennel
