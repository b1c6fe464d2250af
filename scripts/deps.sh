#!/usr/bin/env bash
# Installs fennel's build dependencies (Debian packages) when any is missing.
# Sourced by scripts/test.sh and scripts/demo.sh.
fennel_install_deps() {
    local packages=(meson ninja-build pkg-config gcc libglib2.0-dev libyaml-dev libjson-glib-dev libcairo2-dev python3 scdoc clang-format)
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    ((${#missing[@]} == 0)) && return 0
    echo "installing: ${missing[*]}" >&2
    local sudo=()
    [[ $(id -u) -ne 0 ]] && sudo=(sudo)
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
}

# Configures (once) and builds a meson build directory: fennel_build DIR [meson options...]
fennel_build() {
    local dir=$1
    shift
    if [[ ! -f $dir/build.ninja ]]; then
        meson setup "$dir" "$@" >/dev/null
    fi
    ninja -C "$dir" >/dev/null
}

# Sets $fennel to the program the scripts run: $FENNEL when set, else build/fennel, which is
# built first (installing what the build needs) when it is not there.
fennel_find_program() {
    fennel=${FENNEL:-build/fennel}
    if [[ ! -x $fennel ]]; then
        fennel_install_deps
        fennel_build build
        fennel=build/fennel
    fi
}
