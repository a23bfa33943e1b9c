#!/usr/bin/env bash
# replaces.sh pins k8s.io/kubernetes's staging modules in conformance/go.mod.
#
# k8s.io/kubernetes's own go.mod replaces k8s.io/api, client-go, … with ./staging/src/…,
# which a module that imports it cannot use: it must replace each of them with the
# published version instead (v1.X.Y of kubernetes ships its staging modules as v0.X.Y).
# This reads the list from the kubernetes go.mod the module proxy serves and writes one
# replace line per staging module with `go mod edit`, then tidies.
#
# Usage: hack/replaces.sh [KUBERNETES_VERSION]   (default v1.37.2)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

version="${1:-v1.37.2}"
staging="v0.${version#v1.}"

gomod="$(go mod download -json "k8s.io/kubernetes@${version}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')"
if [ -z "$gomod" ]; then
  echo "could not download the go.mod of k8s.io/kubernetes@${version}" >&2
  exit 1
fi

go mod edit -require="k8s.io/kubernetes@${version}"
# Lines such as "	k8s.io/api => ./staging/src/k8s.io/api" name the staging modules.
sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/src/.*#\1#p' "$gomod" | sort -u |
  while read -r mod; do
    go mod edit -replace="${mod}=${mod}@${staging}"
  done
go mod tidy
