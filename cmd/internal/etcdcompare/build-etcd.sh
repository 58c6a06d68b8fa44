#!/usr/bin/env bash
# build-etcd.sh DIR: builds etcd v3.6.16, etcdctl and etcdutl from the Go module proxy
# into DIR (default bin/etcd-v3.6.16), inside a scratch module under DIR/src,
# and does nothing when all three are there already. `go install pkg@version`
# refuses these modules because of their replace directives, hence the
# scratch module.
set -euo pipefail
dir=${1:-bin/etcd-v3.6.16}
version=v3.6.16
if [ -x "$dir/etcd" ] && [ -x "$dir/etcdctl" ] && [ -x "$dir/etcdutl" ]; then
  exit 0
fi
mkdir -p "$dir/src"
dir=$(cd "$dir" && pwd)
cd "$dir/src"
cat > go.mod <<MOD
module etcdbuild

go 1.26
MOD
cat > main.go <<'MAIN'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
MAIN
echo "building etcd $version, etcdctl and etcdutl into $dir"
GOFLAGS=-mod=mod go get "go.etcd.io/etcd/etcdctl/v3@$version" "go.etcd.io/etcd/etcdutl/v3@$version" \
  "go.etcd.io/etcd/server/v3@$version"
go build -o "$dir/etcd.tmp" .
go build -o "$dir/etcdctl.tmp" go.etcd.io/etcd/etcdctl/v3
go build -o "$dir/etcdutl.tmp" go.etcd.io/etcd/etcdutl/v3
mv "$dir/etcd.tmp" "$dir/etcd"
mv "$dir/etcdctl.tmp" "$dir/etcdctl"
mv "$dir/etcdutl.tmp" "$dir/etcdutl"
