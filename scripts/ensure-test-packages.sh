#!/usr/bin/env bash
# Install the Debian packages the tests drive when they are missing: Chromium for the browser
# tests (never a browser download of Playwright's own) and HAProxy for the cluster's load
# balancer test (deploy/haproxy.cfg).
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/sbin/haproxy ] || missing+=(haproxy)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "missing: ${missing[*]}; run 'sudo apt-get install -y ${missing[*]}'" \
    "(browser tests need /usr/bin/chromium, the proxy test /usr/sbin/haproxy)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
