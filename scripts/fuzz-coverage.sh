#!/usr/bin/env bash
# Line coverage of the parsers by the fuzz corpora: builds the harnesses' replay
# programs with clang's source-based coverage (build-fuzz-cov/), runs each over its seeds,
# its regressions and the corpus scripts/fuzz.sh grew (build-fuzz/corpus/TARGET), and
# prints llvm-cov's report for the files that target parses with. The figures go into
# docs/RELIABILITY.md.
#
#   scripts/fuzz-coverage.sh [TARGET...]     (default: every target)
set -euo pipefail
cd "$(dirname "$0")/.."

targets=("$@")
((${#targets[@]} > 0)) || targets=(program_yaml model goal_loggopsim goal_fennel schedule units)

build=build-fuzz-cov
if [[ ! -f $build/build.ninja ]]; then
    CC=clang meson setup "$build" -Dbuildtype=debug -Dwerror=false \
        -Dc_args="-fprofile-instr-generate -fcoverage-mapping" \
        -Dc_link_args="-fprofile-instr-generate" >/dev/null
fi
ninja -C "$build" $(printf 'tests/fuzz/replay-%s ' "${targets[@]}") >/dev/null

for target in "${targets[@]}"; do
    case $target in
    program_yaml) seeds=(programs/examples tests/data/reference tests/data/viz tests/data/bad tests/fuzz/seeds/program_yaml)
        files=(src/base/yaml_reader.c src/base/yaml_fast.c programs/yaml/program_yaml.c programs/yaml/program_yaml_write.c programs/msccl/msccl_yaml_read.c programs/goal/goal_write.c src/core/program.c src/core/engine.c src/core/engine_network.c src/core/engine_stuck.c) ;;
    model) seeds=(models/presets tests/data/bad tests/fuzz/seeds/model)
        files=(src/base/yaml_reader.c models/model_file.c models/noise.c models/model.c) ;;
    goal_loggopsim) seeds=(tests/data/goal tests/data/bad tests/fuzz/seeds/goal)
        files=(programs/goal/goal_lex.c programs/goal/goal_loggopsim.c) ;;
    goal_fennel) seeds=(tests/data/goal tests/data/bad tests/fuzz/seeds/goal)
        files=(programs/goal/goal_lex.c programs/goal/goal_fennel.c) ;;
    schedule) seeds=(tests/fuzz/seeds/schedule)
        files=(schedules/schedule.c schedules/recursive_multiplying.c) ;;
    units) seeds=(tests/fuzz/seeds/units)
        files=(src/base/units.c) ;;
    *) echo "fuzz-coverage.sh: unknown target '$target'" >&2; exit 2 ;;
    esac
    inputs=()
    for dir in "${seeds[@]}" "tests/fuzz/regressions/$target" "build-fuzz/corpus/$target"; do
        [[ -d $dir ]] && inputs+=("$dir")
    done
    profile=$build/$target.profraw
    LLVM_PROFILE_FILE=$profile "$build/tests/fuzz/replay-$target" "${inputs[@]}" >/dev/null
    llvm-profdata merge -sparse "$profile" -o "$build/$target.profdata"
    echo "== $target ($(find "${inputs[@]}" -type f | wc -l) inputs)"
    llvm-cov report "$build/tests/fuzz/replay-$target" -instr-profile="$build/$target.profdata" |
        awk -v wanted="${files[*]}" -v root="${PWD#/}/" '
            BEGIN { n = split(wanted, w, " "); for (i = 1; i <= n; i++) keep[w[i]] = 1 }
            { name = $1; sub("^/", "", name); if (index(name, root) == 1) name = substr(name, length(root) + 1) }
            name in keep {
                printf "  %-30s lines %5d of %5d (%s)   branches %5d of %5d (%s)\n",
                    name, $8 - $9, $8, $10, $11 - $12, $11, $13 }'
done
