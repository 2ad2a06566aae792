-- Kong Gateway OSS, https://github.com/Kong/kong, kong/plugins/rate-limiting/expiration.lua
-- at commit 22246ef28c16842098369b494eef879222e30c7b (July 2026), Apache License 2.0 (Copyright Kong Inc.),
-- unchanged below these three lines; the conformance test (kong_lua_test.go) loads it.
return {
  second = 1,
  minute = 60,
  hour   = 3600,
  day    = 86400,
  month  = 2592000,
  year   = 31536000,
}
