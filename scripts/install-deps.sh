#!/usr/bin/env bash
# Installs what leancast needs from Debian 12's packages (run as root). Quick no-op when
# everything is there already.
set -euo pipefail
packages=(
  g++ make cmake pkg-config python3 python3-matplotlib
  openmpi-bin libopenmpi-dev mpich libmpich-dev
  libgtest-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  gfortran python3-mpi4py libboost-mpi-dev libsimgrid-dev
  dpkg-dev file ccache clang-format
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "leancast: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
