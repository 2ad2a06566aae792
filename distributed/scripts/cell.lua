-- redis-cell: CL.THROTTLE of brandur/redis-cell (src/cell/mod.rs,
-- RateLimiter.rate_limit, and src/lib.rs), a Redis module in Rust, ported
-- to Lua by the lab so that it runs on any server. The module counts in
-- integer ns and stores the TAT as Unix ns (19 digits); Lua's doubles hold
-- whole numbers only up to 2^53, so times are (seconds, ns) pairs and only
-- differences (under 2^53 ns) are single numbers.
-- KEYS[1]: the key holding the TAT, Unix ns as a decimal string
-- ARGV[1]: max_burst, ARGV[2]: count per period, ARGV[3]: period (s),
-- ARGV[4]: quantity
-- ARGV[5], ARGV[6]: now, seconds and ns since the Unix epoch (the module
-- reads the server's clock; the lab passes it in)
-- Returns CL.THROTTLE's reply: {throttled (1 or 0), limit, remaining,
-- retry_after (s), reset_after (s)}.
local G = 1000000000
local max_burst = tonumber(ARGV[1])
local count = tonumber(ARGV[2])
local period = tonumber(ARGV[3])
local quantity = tonumber(ARGV[4])
local now_s, now_n = tonumber(ARGV[5]), tonumber(ARGV[6])

local function trunc(x)
  if x < 0 then return math.ceil(x) end
  return math.floor(x)
end
-- a whole number of ns below 2^53 as a (seconds, ns) pair
local function split(x)
  local s = math.floor(x / G)
  local n = x - s * G
  if n < 0 then s, n = s - 1, n + G elseif n >= G then s, n = s + 1, n - G end
  return s, n
end
-- a - b in ns
local function sub(as, an, bs, bn) return (as - bs) * G + (an - bn) end
-- Duration::as_seconds_f64() as i64, plus 1 if subsec_milliseconds() > 0
local function whole_seconds(d)
  local s = trunc(d / G)
  if d - s * G >= 1000000 then s = s + 1 end
  return s
end

-- Rate::per_period: (period_ns as f64 / count as f64) as i64
local emission = trunc(period * G / count)
if emission == 0 then return redis.error_reply('Zero rates are not supported') end
local increment = emission * quantity
local dvt = emission * (max_burst + 1)

local tat_s, tat_n = now_s, now_n
local stored = redis.call('GET', KEYS[1])
if stored then
  tat_s, tat_n = tonumber(string.sub(stored, 1, -10)), tonumber(string.sub(stored, -9))
end
-- new_tat = max(now, tat) + increment
local new_s, new_n = tat_s, tat_n
if sub(now_s, now_n, tat_s, tat_n) > 0 then new_s, new_n = now_s, now_n end
local inc_s, inc_n = split(increment)
new_s, new_n = new_s + inc_s, new_n + inc_n
if new_n >= G then new_s, new_n = new_s + 1, new_n - G end

-- diff = now - allow_at, allow_at = new_tat - delay_variation_tolerance
local diff = sub(now_s, now_n, new_s, new_n) + dvt
local throttled, ttl
local retry_after = -G
if diff < 0 then
  if increment <= dvt then retry_after = -diff end
  throttled = 1
  ttl = sub(tat_s, tat_n, now_s, now_n)
else
  throttled = 0
  ttl = sub(new_s, new_n, now_s, now_n)
  -- The module also sets a TTL of ttl in whole ms (set_expire); the
  -- lab's keys never expire during a run, so the port leaves it out.
  redis.call('SET', KEYS[1], tostring(new_s) .. string.sub(tostring(G + new_n), 2))
end

local remaining = 0
local nxt = dvt - ttl
if nxt > -emission then
  remaining = trunc(trunc(nxt / 1000) / trunc(emission / 1000))
end
return {throttled, max_burst + 1, remaining, whole_seconds(retry_after), whole_seconds(ttl)}
