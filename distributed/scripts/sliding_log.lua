-- redis-sliding-log (atomic=true, count=passed): the seed's script.
-- KEYS[1]: the ZSET of passes, score = now_ms, member unique per request
-- ARGV[1]: limit
-- ARGV[2]: window_ms
-- ARGV[3]: now_ms
-- ARGV[4]: member
-- Returns 1 (pass) or 0 (block).
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, ARGV[3] - ARGV[2])
local count = redis.call('ZCARD', KEYS[1])
if count < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
