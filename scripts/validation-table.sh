#!/usr/bin/env bash
# From a folder of benchmark outputs to a verdict: for every machine, fits its ping-pong with
# `fennel fit`, compares its collective measurements under that model with `fennel compare`,
# and prints one Markdown table: per machine and collective the points compared and, before
# (every rank on its own node, the collective's default generator) and after (the reduction's
# per-byte cost fitted from the machine's collectives, its ranks per node, its library's
# algorithm), the median and worst |model - measured| / measured and the median
# model/measured, and whether the targets of docs/VALIDATION.md (median <= 20 %, worst
# <= 60 %) are met.
#
# Usage: scripts/validation-table.sh DIR [OUTDIR]   (FENNEL=path/to/fennel)
#
# DIR holds one sub-folder per machine, each with a machine.txt (docs/VALIDATION.md, Layout):
#
#   name: Lassen, 4 nodes          the machine's name in the table (default: the folder's)
#   pingpong: FILE [TITLE]         a ping-pong output; with TITLE only its tables whose title
#                                  line (`# OSU ...`, `# Benchmarking ...`) contains TITLE
#   intra: FILE [TITLE]            a ping-pong of two ranks on one node, selected the same way
#                                  (fennel fit --intra; else --ppn takes the shared-memory
#                                  default within a node)
#   collective: FILE [TITLE]       collective measurements, selected the same way; repeatable
#   ranks: N                       for tables that do not say (OSU prints no process count)
#   ppn: P                         ranks per node of the collective runs (after: --ppn P)
#   library: NAME                  the library's tables to use (after: --library NAME)
#   nic: own|shared                the ranks of a node have a NIC each or share one (after:
#                                  --nic; without it --ppn above 1 shares one)
#   duplex: half                   ports that do not send and receive at once (after:
#                                  --duplex half); by size: half, full from 8KiB, ...
#   eager: SIZE                    the library's eager limit: a send of fewer bytes returns
#                                  once its bytes have left (after: --set eager=SIZE)
#
# FILE is relative to the machine's folder. The models, the selected tables and each
# comparison's JSON are written to OUTDIR (default: a temporary folder, removed at the end).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

usage() {
    echo "usage: scripts/validation-table.sh DIR [OUTDIR]" >&2
    exit 2
}
fail() {
    echo "validation-table.sh: $*" >&2
    exit 1
}
(($# >= 1 && $# <= 2)) || usage
dir=$1
[[ -d $dir ]] || fail "$dir: not a folder"
[[ $dir == / ]] || dir=${dir%/}
if [[ -n ${FENNEL:-} ]]; then
    fennel=$FENNEL
else
    cd "$here"
    source scripts/deps.sh
    fennel_find_program
    fennel=$here/$fennel
    cd - >/dev/null
fi
if (($# == 2)); then
    out=$2
    [[ $out == / ]] || out=${out%/}
    mkdir -p "$out"
else
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi

# Writes FILE's tables whose title contains TITLE to DEST, every other line blank, so that
# fennel's FILE:LINE messages and the model's data lines give the original line numbers. A
# table runs from its title to the next title of either tool.
select_tables() {
    local file=$1 title=$2 dest=$3
    awk -v title="$title" -v dest="$dest" '
        /^[ \t]*# OSU / || /^[ \t]*# Benchmarking / {
            keep = index($0, title) > 0
            if (keep) found = 1
        }
        { print (keep ? $0 : "") > dest }
        END { if (!found) exit 1 }' "$file"
}

# One input line of machine.txt, "FILE [TITLE]", as the arguments fennel reads: the file
# itself, or its selected tables.
inputs=()
input_args() {
    local m=$1 spec=$2 what=$3 n=$4
    local file=${spec%%[[:space:]]*} title=""
    [[ $spec == *[[:space:]]* ]] && title=${spec#*[[:space:]]} && title=${title#"${title%%[![:space:]]*}"}
    [[ -f $m/$file ]] || fail "$m/machine.txt: $what file '$file' does not exist"
    if [[ -z $title ]]; then
        inputs=("$m/$file")
        return
    fi
    local dest=$out/$(basename "$m")/$what-$n-$(basename "$file")
    select_tables "$m/$file" "$title" "$dest" ||
        fail "$m/machine.txt: no table of '$file' has '$title' in its title"
    inputs=("$dest")
}

machines=()
for m in "$dir"/*/; do
    [[ -f $m/machine.txt ]] && machines+=("${m%/}")
done
((${#machines[@]})) || fail "$dir: no sub-folder with a machine.txt"

rows=$out/rows.tsv
: >"$rows"
for m in "${machines[@]}"; do
    name=$(basename "$m") ranks="" ppn="" library="" nic="" duplex="" eager="" pingpongs=() intras=()
    collectives=()
    while IFS= read -r line || [[ -n $line ]]; do
        line=${line%%#*}
        [[ $line =~ ^[[:space:]]*$ ]] && continue
        [[ $line =~ ^([a-z]+):[[:space:]]*(.*[^[:space:]])[[:space:]]*$ ]] ||
            fail "$m/machine.txt: expected 'key: value', got '$line'"
        key=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]}
        case $key in
        name) name=$value ;;
        pingpong) pingpongs+=("$value") ;;
        intra) intras+=("$value") ;;
        collective) collectives+=("$value") ;;
        ranks) ranks=$value ;;
        ppn) ppn=$value ;;
        library) library=$value ;;
        nic) nic=$value ;;
        duplex) duplex=$value ;;
        eager) eager=$value ;;
        *) fail "$m/machine.txt: unknown key '$key' (name, pingpong, intra, collective, ranks, ppn, library, nic, duplex, eager)" ;;
        esac
    done <"$m/machine.txt"
    ((${#pingpongs[@]})) || fail "$m/machine.txt: no 'pingpong:' line"
    ((${#collectives[@]})) || fail "$m/machine.txt: no 'collective:' line"
    [[ -z $ranks || $ranks =~ ^[1-9][0-9]*$ ]] || fail "$m/machine.txt: ranks: expected a whole number >= 1"
    [[ -z $ppn || $ppn =~ ^[1-9][0-9]*$ ]] || fail "$m/machine.txt: ppn: expected a whole number >= 1"
    [[ -z $nic || $nic == own || $nic == shared ]] || fail "$m/machine.txt: nic: expected own or shared"
    [[ -z $duplex || $duplex =~ ^(full|half)(,[[:space:]]*(full|half)[[:space:]]+from[[:space:]]+[^,]+)*$ ]] ||
        fail "$m/machine.txt: duplex: expected full or half, or 'half, full from 8KiB, ...'"
    [[ -z $eager || $eager =~ ^[0-9]+[[:space:]]*[A-Za-z]*$ ]] || fail "$m/machine.txt: eager: expected a size (64KiB)"
    ports=(${nic:+--nic "$nic"} ${duplex:+--duplex "$duplex"} ${eager:+--set "eager=$eager"})
    mkdir -p "$out/$(basename "$m")"
    model=$out/$(basename "$m")/model.yaml

    # The ping-pong: one postal model, its sizes in segments as fit chooses them; an
    # intra-node ping-pong, when the machine has one, as the model's intra level.
    args=()
    for i in "${!pingpongs[@]}"; do
        input_args "$m" "${pingpongs[$i]}" pingpong "$i"
        args+=("${inputs[@]}")
    done
    for i in "${!intras[@]}"; do
        input_args "$m" "${intras[$i]}" intra "$i"
        args+=(--intra "${inputs[0]}")
    done
    "$fennel" fit "${args[@]}" -o "$model" >"$out/$(basename "$m")/fit.txt" ||
        fail "$name: fennel fit failed"

    # The collective files, each its selected tables or the file itself.
    base=$out/$(basename "$m")
    files=()
    for i in "${!collectives[@]}"; do
        input_args "$m" "${collectives[$i]}" collective "$i"
        files+=("${inputs[0]}")
    done

    # The reduction's per-byte cost, fitted from the machine's own collective measurements
    # (those of allreduce, reduce, reduce_scatter) under the ping-pong's model, its ranks per
    # node and ports, and its library's algorithms, as the after column runs them; a machine
    # with no reduction measured (or none its library has a table and fennel a generator
    # for) keeps the model without one.
    after_model=$model reduction=""
    if "$fennel" fit "${files[@]}" --model "$model" ${ranks:+--ranks "$ranks"} \
        ${ppn:+--ppn "$ppn"} "${ports[@]}" ${library:+--library "$library"} --json \
        -o "$base/model-reduction.yaml" >"$base/reduction.json" \
        2>"$base/reduction.err"; then
        after_model=$base/model-reduction.yaml reduction=$base/reduction.json
    elif ! grep -q -e "^fennel: no measured point's model time depends on the reduction" \
        -e '^fennel: no collective times to compare' -e 'which no generator of fennel performs' \
        "$base/reduction.err"; then
        fail "$name: fennel fit --model failed: $(cat "$base/reduction.err")"
    fi

    # Each collective file: before, the ping-pong's model, every rank on its own node and the
    # collective's default generator; after, the model with the reduction's cost, the
    # machine's ranks per node and its library's algorithm (the default generator for
    # collectives the library has no table for).
    for i in "${!files[@]}"; do
        before=("${files[$i]}" --model "$model" ${ranks:+--ranks "$ranks"} --json)
        after=("${files[$i]}" --model "$after_model" ${ranks:+--ranks "$ranks"} \
            ${ppn:+--ppn "$ppn"} "${ports[@]}" --json)
        "$fennel" compare "${before[@]}" >"$base/before-$i.json" ||
            fail "$name: fennel compare failed on '${collectives[$i]}'"
        "$fennel" compare "${after[@]}" >"$base/after-$i.json" ||
            fail "$name: fennel compare --ppn failed on '${collectives[$i]}'"
        lib=""
        if [[ -n $library ]]; then
            lib=$base/library-$i.json
            # A file none of whose collectives the library has a table for has no points; an
            # unknown library is an error; the points the library runs an algorithm for that
            # fennel has no generator for are left out by compare and named in the notes (a
            # file of nothing else leaves its after column empty, with the message).
            if ! "$fennel" compare "${after[@]}" --library "$library" >"$lib" \
                2>"$base/library-$i.err"; then
                if grep -q '^fennel: no collective times to compare' "$base/library-$i.err"; then
                    lib=""
                elif grep -q 'which no generator of fennel performs' "$base/library-$i.err"; then
                    lib=error:$base/library-$i.err
                else
                    fail "$name: fennel compare --library failed on '${collectives[$i]}':" \
                        "$(cat "$base/library-$i.err")"
                fi
            fi
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${ppn:--}" "${library:--}" \
            "$base/before-$i.json" "$base/after-$i.json" "$lib" "$reduction" >>"$rows"
    done
done

python3 - "$rows" <<'PY'
import json
import sys


def pct(x):
    return "n/a" if x is None else f"{100 * x:.1f} %"


def ratio(x):
    return "n/a" if x is None else f"{x:.3g}"


def verdict(t):
    med, worst = t["median_relative_error"], t["worst_relative_error"]
    return "met" if med is not None and worst is not None and med <= 0.2 and worst <= 0.6 \
        else "missed"


def score(t):
    return (f"{pct(t['median_relative_error'])} | {pct(t['worst_relative_error'])} at "
            f"{t['worst_bytes']} B | {ratio(t['median_ratio'])}")


print("| machine | library | collective | ranks | ppn | points | before: generator | median "
      "| worst | model/measured | after: algorithm | reduction (ns/B) | median | worst "
      "| model/measured | targets before, after |")
print("|---|---|---|---:|---:|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---|")
notes = []
for line in open(sys.argv[1]):
    name, ppn, library, before, after, lib, reduction = line.rstrip("\n").split("\t")
    if reduction:
        r = json.load(open(reduction))
        gamma = f"{r['gamma_ns_per_byte']:.3g}" + (" (held at 0)" if r["held_at_zero"] else "")
    else:
        gamma = "-"
    doc = json.load(open(before))
    plain = {(t["collective"], t["ranks"]): t for t in json.load(open(after))["tables"]}
    failed = open(lib[6:]).read().strip() if lib.startswith("error:") else None
    libdoc = json.load(open(lib)) if lib and not failed else {}
    chosen = {(t["collective"], t["ranks"]): t for t in libdoc.get("tables", [])}
    # Collectives some of whose points the library runs by an algorithm fennel lacks.
    lacking = {n.split(" ")[0] for n in libdoc.get("no_generator", "").split(",") if n}
    if failed:
        notes.append(f"{name}: after not simulated: {failed.removeprefix('fennel: ')}")
    if libdoc.get("no_generator_points"):
        n = libdoc["no_generator_points"]
        first = libdoc["no_generator_first"].removeprefix("fennel: ")
        notes.append(f"{name}: after, {n} point{'s' if n != 1 else ''} left out where "
                     f"{library} runs what no generator of fennel performs "
                     f"({libdoc['no_generator'].replace(',', ', ')}); the first: {first}")
    for t in doc["tables"]:
        key = (t["collective"], t["ranks"])
        if failed or (key not in chosen and t["collective"] in lacking):
            print(f"| {name} | {library} | {t['collective'] or '-'} | {t['ranks']} | {ppn} | "
                  f"{t['points']} | {t['generator']} | {score(t)} | not simulated (see below) "
                  f"| {gamma} | n/a | n/a | n/a | {verdict(t)}, n/a |")
            continue
        if key in chosen:
            a, how = chosen[key], f"{library}: {chosen[key]['generator'].replace(',', ', ')}"
            if a["points"] < t["points"]:
                how += f" ({a['points']} of {t['points']} points, see below)"
        else:
            a = plain[key]
            how = a["generator"] + (f" (no {library} table)" if library != "-" else "")
        partial = f" on {a['points']} of {t['points']} points" if a["points"] < t["points"] else ""
        print(f"| {name} | {library} | {t['collective'] or '-'} | {t['ranks']} | {ppn} | "
              f"{t['points']} | {t['generator']} | {score(t)} | {how} | {gamma} | {score(a)} | "
              f"{verdict(t)}, {verdict(a)}{partial} |")
    if doc["left_out"]:
        notes.append(f"{name}: left out, no default generator: {doc['left_out']}")
    if doc["zero_byte_rows_left_out"]:
        n = doc["zero_byte_rows_left_out"]
        notes.append(f"{name}: left out, {n} row{'s' if n != 1 else ''} of 0 bytes")
if notes:
    print()
    for n in notes:
        print(f"- {n}")
PY
