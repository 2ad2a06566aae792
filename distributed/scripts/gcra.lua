-- redis-gcra: the GCRA of go-redis/redis_rate v10 (Limiter.AllowN, from
-- rwz/redis-gcra by Pavel Pravosud), the same operations in the same order,
-- with one change: "now" is passed in (ARGV[5], ARGV[6]) as the two values
-- that TIME would return, instead of calling TIME.
-- KEYS[1]: the key holding the theoretical arrival time (TAT)
-- ARGV[1]: burst
-- ARGV[2]: rate
-- ARGV[3]: period in seconds
-- ARGV[4]: cost (the trace's cost column; 1 without one)
-- ARGV[5]: seconds of the epoch, ARGV[6]: microseconds (what TIME returns)
-- Returns {allowed, remaining, retry_after, reset_after}: allowed is cost
-- (pass) or 0 (block).
redis.replicate_commands()

local rate_limit_key = KEYS[1]
local burst = ARGV[1]
local rate = ARGV[2]
local period = ARGV[3]
local cost = tonumber(ARGV[4])

local emission_interval = period / rate
local increment = emission_interval * cost
local burst_offset = emission_interval * burst

local jan_1_2017 = 1483228800
local now = {ARGV[5], ARGV[6]}
now = (now[1] - jan_1_2017) + (now[2] / 1000000)

local tat = redis.call("GET", rate_limit_key)

if not tat then
  tat = now
else
  tat = tonumber(tat)
end

tat = math.max(tat, now)

local new_tat = tat + increment
local allow_at = new_tat - burst_offset

local diff = now - allow_at
local remaining = diff / emission_interval

if remaining < 0 then
  local reset_after = tat - now
  local retry_after = diff * -1
  return {
    0, -- allowed
    0, -- remaining
    tostring(retry_after),
    tostring(reset_after),
  }
end

local reset_after = new_tat - now
if reset_after > 0 then
  redis.call("SET", rate_limit_key, new_tat, "EX", math.ceil(reset_after))
end
local retry_after = -1
return {cost, remaining, tostring(retry_after), tostring(reset_after)}
