-- redis-fixed-window: one counter key per window (§1.1 of seed 002).
-- KEYS[1]: the window's key, <prefix>fw:<window index>
-- ARGV[1]: limit
-- ARGV[2]: window_ms
-- Returns 1 (pass) or 0 (block).
local n = redis.call('INCR', KEYS[1])
if n == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
if n <= tonumber(ARGV[1]) then
  return 1
end
return 0
