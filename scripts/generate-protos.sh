#!/usr/bin/env bash
# Regenerates Sources/NordicDFU/Package/dfu-cc.pb.swift from dfu-cc.proto. Needs protoc and a
# protoc-gen-swift that matches the swift-protobuf version in Package.resolved; give its path as
# $1 (default: the one on PATH). The generated file is committed (it opts out of swift-format).
set -euo pipefail
cd "$(dirname "$0")/.."
plugin="${1:-$(command -v protoc-gen-swift)}"
dir=Sources/NordicDFU/Package
protoc --plugin="protoc-gen-swift=$plugin" --swift_opt=Visibility=Internal \
    --proto_path="$dir" --swift_out="$dir" "$dir/dfu-cc.proto"
