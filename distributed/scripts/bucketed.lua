-- redis-bucketed: one ZSET of bucket counters (§2.3 of seed 002).
-- member = bucket start in ms (now - now % bucket), score = passes in it.
-- KEYS[1]: the ZSET of buckets
-- ARGV[1]: limit
-- ARGV[2]: window_ms
-- ARGV[3]: now_ms
-- ARGV[4]: bucket_ms (divides window_ms)
-- Returns 1 (pass) or 0 (block).
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local bucket = tonumber(ARGV[4])
-- Delete the buckets that start at or before now - window, sum the others
-- (a bucket that starts after now, written by a faster clock, counts).
local buckets = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local count = 0
for i = 1, #buckets, 2 do
  if tonumber(buckets[i]) <= now - window then
    redis.call('ZREM', KEYS[1], buckets[i])
  else
    count = count + tonumber(buckets[i + 1])
  end
end
if count < limit then
  redis.call('ZINCRBY', KEYS[1], 1, now - now % bucket)
  redis.call('PEXPIRE', KEYS[1], window)
  return 1
end
return 0
