#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine needs to build and test khost. Idempotent:
# a second run installs nothing new. Versions are pinned so CI and developers agree.
set -euo pipefail

MESON_VERSION=1.9.1
CUTLASS_VERSION=4.2.0.0   # CuTe headers for plugins/cute (headers only, no deps)
TRITON_VERSION=3.6.0      # the Triton the kernels were tuned with; used only at build time
NUMPY_VERSION=2.2.6

# clang and libclang-rt-14-dev (libFuzzer's runtime, only recommended by clang) build tests/fuzz;
# chromium renders khost report's pages headless in tests/report_browser.py.
apt_packages=(build-essential pkg-config ninja-build libinih-dev libcriterion-dev libjansson-dev
  python3 python3-pip python3-venv clang libclang-rt-14-dev chromium)

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || {
      echo "bootstrap: installing ${missing[*]} needs root, and sudo is not installed; run this as root" >&2
      exit 1
    }
    sudo_cmd="sudo"
  fi
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

py=${PYTHON:-python3}
# PEP 668: pip refuses to install into a distribution's own interpreter (Debian's
# /usr/bin/python3) outside a virtualenv; say what to do before pip's long refusal.
managed=$("$py" -c 'import os, sys, sysconfig
print(sys.prefix == sys.base_prefix and os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))') \
  || { echo "bootstrap: cannot run the Python interpreter '$py' (set PYTHON to one that runs)" >&2; exit 1; }
pip_install() {
  if [ "$managed" = True ]; then
    echo "bootstrap: pip may not install into $py, which is externally managed (PEP 668). Create and" \
      "activate a virtual environment (python3 -m venv .venv && . .venv/bin/activate) and rerun," \
      "or set PYTHON to another interpreter." >&2
    exit 1
  fi
  "$py" -m pip install --quiet --disable-pip-version-check "$@"
}
pip_has() { "$py" -m pip show "$1" 2>/dev/null | grep -qx "Version: $2"; }

pip_has meson "$MESON_VERSION" || pip_install "meson==$MESON_VERSION"
pip_has nvidia-cutlass "$CUTLASS_VERSION" || pip_install --no-deps "nvidia-cutlass==$CUTLASS_VERSION"
pip_has triton "$TRITON_VERSION" || pip_install --no-deps "triton==$TRITON_VERSION"
pip_has numpy "$NUMPY_VERSION" || pip_install "numpy==$NUMPY_VERSION"  # tests read --dump files

# pyenv installs console scripts behind shims that exist only after a rehash.
if command -v pyenv >/dev/null 2>&1; then pyenv rehash; fi
command -v meson >/dev/null || { echo "bootstrap: meson is not on PATH after install" >&2; exit 1; }

echo "bootstrap: ok (meson $MESON_VERSION, nvidia-cutlass $CUTLASS_VERSION, triton $TRITON_VERSION)"
