#!/usr/bin/env bash
# Installs, by name, what a fresh Debian machine lacks to build and test
# raftsim. It does nothing when everything is there already.
set -euo pipefail
pkgs=(libgl1-mesa-dev libxcursor-dev libxi-dev libxinerama-dev libxrandr-dev libxxf86vm-dev
      libx11-dev xvfb xauth tmux fonts-noto-cjk chromium tesseract-ocr tesseract-ocr-chi-sim fonttools xz-utils)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
