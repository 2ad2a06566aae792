local count = = redis.call('ZCARD', KEYS[1])
