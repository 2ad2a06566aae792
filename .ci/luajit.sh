# Sourced by .ci/run: LuaJIT for the Kong conformance test
# (algorithms/gateway_kong_lua_test.go), which runs Kong's own
# rate-limiting plugin (algorithms/testdata/kong) under luajit against the
# redis-server .ci/redis.sh starts. It installs Debian's luajit with
# apt-get when missing (CI runs as root) and checks that it runs; the test
# fails when CI=true and luajit is not on PATH.

ensure_luajit() {
  if ! command -v luajit >/dev/null; then
    echo "installing luajit"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq luajit >/dev/null
  fi
  luajit -e 'assert(require("ffi") and require("table.clear"))' || { echo "luajit does not run"; return 1; }
  echo "$(luajit -v)"
}
