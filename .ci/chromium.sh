# Sourced by .ci/run: make sure a headless Chromium is there for the browser
# test (cmd/ratelimit-lab/browser_test.go), which drives it with chromedp.
# It installs Debian's chromium with apt-get when none is on the PATH (CI
# runs as root) and exports RATELIMIT_LAB_CHROMIUM. The test starts and
# stops the browser itself; with CI=true it fails rather than skips when
# no browser is found.

ensure_chromium() {
  local path
  path=$(command -v chromium || command -v chromium-browser || true)
  if [ -z "$path" ]; then
    echo "installing chromium"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    path=$(command -v chromium)
  fi
  export RATELIMIT_LAB_CHROMIUM="$path"
  echo "chromium: $("$path" --version 2>/dev/null | head -1) at $path"
}
