-- redis-spring-gateway: Spring Cloud Gateway's request_rate_limiter.lua
-- (spring-cloud-gateway-server-webflux, src/main/resources/META-INF/scripts,
-- Apache License 2.0), unchanged below this comment. RedisRateLimiter calls
-- it with KEYS = request_rate_limiter.{route.id}.tokens and .timestamp,
-- ARGV = replenishRate, burstCapacity, "" (so now = TIME's seconds),
-- requestedTokens; the lab passes now's whole seconds as ARGV[3] instead,
-- which the script itself accepts, so that every backend reads the same
-- clock. Returns {allowed (1 or 0), tokens left}.
redis.replicate_commands()

local tokens_key = KEYS[1]
local timestamp_key = KEYS[2]

local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local now = tonumber(ARGV[3]) or redis.call('TIME')[1]
local requested = tonumber(ARGV[4])

local fill_time = capacity / rate
local ttl = math.floor(fill_time * 2)

local last_tokens = tonumber(redis.call("get", tokens_key)) or capacity
local last_refreshed = tonumber(redis.call("get", timestamp_key)) or 0

local delta = math.max(0, now-last_refreshed)
local filled_tokens = math.min(capacity, last_tokens+(delta*rate))
local allowed = filled_tokens >= requested
local new_tokens = allowed and filled_tokens - requested or filled_tokens

if ttl > 0 then
  redis.call("setex", tokens_key, ttl, new_tokens)
  redis.call("setex", timestamp_key, ttl, now)
end

return { allowed and 1 or 0, new_tokens }
