-- Fails at run time: ZCARD on a string key.
redis.call('SET', KEYS[1], 'x')
return redis.call('ZCARD', KEYS[1])
