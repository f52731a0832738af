#!/usr/bin/env bash
# Installs what Stowage's tests need on a fresh Debian machine, then the workspace's packages:
# pnpm (from npm: corepack's signature check fails against this registry), the three browser
# engines (test tools cannot download browsers here): Chromium (/usr/bin/chromium), Firefox
# (firefox-esr) and WebKit (WebKitGTK's MiniBrowser with WebKitWebDriver from webkit2gtk-driver,
# shown on an Xvfb display), and redis-server (Redis tests start their own when none answers).
# System packages need root or sudo.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=''
apt_install() {
  if ! command -v apt-get >/dev/null; then
    echo "bootstrap: please install $* with your package manager" >&2
    return 1
  fi
  [ -n "$apt_updated" ] || { sudo_if_needed apt-get update -qq; apt_updated=1; }
  echo "bootstrap: installing $* from Debian's packages"
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || apt_install chromium
[ -x "${FIREFOX_PATH:-/usr/bin/firefox-esr}" ] || apt_install firefox-esr
[ -x "${WEBKIT_DRIVER_PATH:-/usr/bin/WebKitWebDriver}" ] || apt_install webkit2gtk-driver
command -v Xvfb >/dev/null || apt_install xvfb
command -v redis-server >/dev/null || apt_install redis-server
command -v pnpm >/dev/null || { echo 'bootstrap: installing pnpm 12 from npm'; npm i -g pnpm@12 >/dev/null; }

# In CI (CI=true) pnpm refuses to change the lockfile.
pnpm install
