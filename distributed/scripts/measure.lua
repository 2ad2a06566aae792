-- The lab's measurement, not part of any limiter (not counted in
-- redis_commands): the number of members of KEYS[1], whatever its type.
local t = redis.call('TYPE', KEYS[1])['ok']
if t == 'zset' then return redis.call('ZCARD', KEYS[1]) end
if t == 'hash' then return redis.call('HLEN', KEYS[1]) end
if t == 'set' then return redis.call('SCARD', KEYS[1]) end
if t == 'list' then return redis.call('LLEN', KEYS[1]) end
if t == 'none' then return 0 end
return 1
