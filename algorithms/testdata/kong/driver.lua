-- The lab's harness for Kong's rate-limiting plugin (handler.lua,
-- policies_init.lua, expiration.lua beside this file, Kong's own code)
-- under LuaJIT with a real redis-server, on a virtual clock.
--
-- Usage: luajit driver.lua DIR HOST PORT < trace
--
-- The trace's first line is
--   epoch_ms rtt_ns sync_rate_s route_id units...
-- where each unit is NAME=LIMIT (second=5); the second line lists each
-- node's clock offset in ns; then one arrival a line: "t_ns node ident".
-- It prints one line per arrival, in arrival order: "P wait_ns" for a pass
-- (wait: from arrival to the verdict) or "R", then
-- "reads N syncs N evals N" (Redis traffic the plugin sent).
--
-- What the lab writes itself (the shims): ngx (time, now, null, ctx,
-- sleep, timer), kong (timer:at, log, client, request, response, router),
-- kong.tools.timestamp (get_timestamps: UTC window starts in ms, what
-- Kong's luatz-based module returns), kong.tools.table, kong.meta,
-- kong.reports, kong.pdk.private.rate_limiting, and resty.redis: a client
-- speaking RESP to the real redis-server over LuaJIT's FFI (blocking
-- sockets), whose every command yields the calling coroutine as an
-- OpenResty cosocket does. Each node is its own copy of the modules
-- (module locals are per worker) with its own ngx and kong.
--
-- The virtual clock (the lab's model, algorithms/gateway_kong_sync.go):
-- a command or pipeline sent at s executes in Redis at s + floor(rtt/2)
-- (in the order sent) and resumes its coroutine at s + rtt. At one
-- instant: Redis executions, then replies (in the order sent), then
-- timers (in the order armed), then the arrival.

local ffi = require "ffi"
local dir, host, port = arg[1], arg[2], tonumber(arg[3])

-- A sentinel for what ngx.null is.
local null = setmetatable({}, { __tostring = function() return "null" end })

---------------------------------------------------------------- Redis over FFI
ffi.cdef [[
int socket(int domain, int type, int protocol);
int connect(int fd, const void *addr, unsigned int len);
long send(int fd, const void *buf, unsigned long n, int flags);
long recv(int fd, void *buf, unsigned long n, int flags);
int close(int fd);
int inet_pton(int af, const char *src, void *dst);
unsigned short htons(unsigned short v);
struct lab_sockaddr_in { unsigned short family; unsigned short port; unsigned char addr[4]; unsigned char zero[8]; };
]]

local C = ffi.C
local fd
do
  fd = C.socket(2, 1, 0)
  assert(fd >= 0, "socket failed")
  local sa = ffi.new("struct lab_sockaddr_in")
  sa.family = 2
  sa.port = C.htons(port)
  assert(C.inet_pton(2, host, sa.addr) == 1, "bad host " .. host)
  assert(C.connect(fd, sa, ffi.sizeof(sa)) == 0, "cannot connect to redis-server at " .. host .. ":" .. port)
end

local rbuf = ffi.new("char[65536]")
local pending = "" -- bytes received, not parsed yet

local function send_all(s)
  local off = 0
  while off < #s do
    local n = C.send(fd, ffi.cast("const char *", s) + off, #s - off, 0)
    assert(n > 0, "send to redis-server failed")
    off = off + n
  end
end

local function fill()
  local n = C.recv(fd, rbuf, 65536, 0)
  assert(n > 0, "redis-server closed the connection")
  pending = pending .. ffi.string(rbuf, n)
end

local function read_line()
  while true do
    local i = pending:find("\r\n", 1, true)
    if i then
      local line = pending:sub(1, i - 1)
      pending = pending:sub(i + 2)
      return line
    end
    fill()
  end
end

local function read_reply()
  local line = read_line()
  local t, rest = line:sub(1, 1), line:sub(2)
  if t == "+" then
    return rest
  elseif t == "-" then
    return nil, rest
  elseif t == ":" then
    return tonumber(rest)
  elseif t == "$" then
    local n = tonumber(rest)
    if n < 0 then return null end
    while #pending < n + 2 do fill() end
    local s = pending:sub(1, n)
    pending = pending:sub(n + 3)
    return s
  elseif t == "*" then
    local n = tonumber(rest)
    if n < 0 then return null end
    local out = {}
    for i = 1, n do
      local v, err = read_reply()
      out[i] = v == nil and { false, err } or v
    end
    return out
  end
  error("bad reply from redis-server: " .. line)
end

-- lua-resty-redis's _gen_req: args up to #args, each through tostring.
local function gen_req(args)
  local parts = { "*" .. #args .. "\r\n" }
  for i = 1, #args do
    local a = args[i]
    if type(a) ~= "string" then a = tostring(a) end
    parts[#parts + 1] = "$" .. #a .. "\r\n" .. a .. "\r\n"
  end
  return table.concat(parts)
end

-- exec runs requests (already encoded) on redis-server, in one write, and
-- returns their replies as lua-resty-redis does (an error reply inside a
-- pipeline is {false, err}).
local function exec(reqs)
  send_all(table.concat(reqs))
  local out = {}
  for i = 1, #reqs do
    local v, err = read_reply()
    out[i] = { v, err }
  end
  return out
end

---------------------------------------------------------------- virtual clock
local now = 0 -- ns
local seq = 0
local heap = {}

local function less(a, b)
  if a.at ~= b.at then return a.at < b.at end
  if a.class ~= b.class then return a.class < b.class end
  return a.seq < b.seq
end

local function push(at, class, fn)
  seq = seq + 1
  local e = { at = at, class = class, seq = seq, fn = fn }
  heap[#heap + 1] = e
  local i = #heap
  while i > 1 do
    local p = math.floor(i / 2)
    if less(heap[i], heap[p]) then
      heap[i], heap[p] = heap[p], heap[i]
      i = p
    else
      break
    end
  end
end

local function pop()
  local top = heap[1]
  local last = table.remove(heap)
  if #heap > 0 then
    heap[1] = last
    local i = 1
    while true do
      local l, r, m = 2 * i, 2 * i + 1, i
      if l <= #heap and less(heap[l], heap[m]) then m = l end
      if r <= #heap and less(heap[r], heap[m]) then m = r end
      if m == i then break end
      heap[i], heap[m] = heap[m], heap[i]
      i = m
    end
  end
  return top
end

local CLASS_EXEC, CLASS_REPLY, CLASS_TIMER, CLASS_ARRIVAL = 0, 1, 2, 3

local header = io.read("*l")
local fields = {}
for w in header:gmatch("%S+") do fields[#fields + 1] = w end
local epoch_ms, rtt, sync_rate, route_id = tonumber(fields[1]), tonumber(fields[2]), tonumber(fields[3]), fields[4]
local limits = {}
for i = 5, #fields do
  local name, v = fields[i]:match("^(%a+)=(.+)$")
  limits[name] = tonumber(v)
end
local offsets = {}
for w in io.read("*l"):gmatch("%S+") do offsets[#offsets + 1] = tonumber(w) end
local half = math.floor(rtt / 2)

local reads, syncs, evals = 0, 0, 0

-- resume runs coroutine co with its arguments and hands what it yields to
-- the scheduler: {"redis", reqs} (send now, resume at now + rtt) or
-- {"sleep", seconds}.
local function resume(co, ...)
  local ok, what, a = coroutine.resume(co, ...)
  if not ok then error(what) end
  if coroutine.status(co) == "dead" then return end
  if what == "redis" then
    local result
    push(now + half, CLASS_EXEC, function() result = exec(a) end)
    push(now + rtt, CLASS_REPLY, function() resume(co, result) end)
  elseif what == "sleep" then
    push(now + math.floor(a * 1e9 + 0.5), CLASS_TIMER, function() resume(co) end)
  else
    error("unexpected yield " .. tostring(what))
  end
end

---------------------------------------------------------------- shims
-- UTC window starts in ms, as kong.tools.timestamp.get_timestamps.
local function days_to_civil(z)
  z = z + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local y = yoe + era * 400
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local d = doy - math.floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  if m <= 2 then y = y + 1 end
  return y, m, d
end

local function civil_to_days(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = m > 2 and m - 3 or m + 9
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

local timestamp = {
  get_timestamps = function(ms)
    local sec = math.floor(ms / 1000)
    local days = math.floor(sec / 86400)
    local y, m = days_to_civil(days)
    return {
      second = sec * 1000,
      minute = math.floor(sec / 60) * 60000,
      hour = math.floor(sec / 3600) * 3600000,
      day = days * 86400000,
      month = civil_to_days(y, m, 1) * 86400000,
      year = civil_to_days(y, 1, 1) * 86400000,
    }
  end,
}

local failures = {}

local function new_node(k)
  local node = {}
  local function node_time() return math.floor((epoch_ms * 1e6 + now + offsets[k]) / 1e9) end
  local ngx = {
    null = null,
    time = node_time,
    now = function() return math.floor((epoch_ms * 1e6 + now + offsets[k]) / 1e6) / 1000 end,
    update_time = function() end,
    ctx = {},
    shared = { kong_rate_limiting_counters = {} },
    sleep = function(s) coroutine.yield("sleep", s) end,
    timer = { at = function() error("the redis policy with sync_rate > 0 arms no ngx.timer.at") end },
  }
  local identifier
  local kong = {
    log = {
      err = function(...) failures[#failures + 1] = table.concat({ ... }, "") end,
      emerg = function(...) failures[#failures + 1] = table.concat({ ... }, "") end,
    },
    timer = {
      at = function(_, delay, fn)
        push(now + math.floor(delay * 1e9 + 0.5), CLASS_TIMER, function()
          resume(coroutine.create(fn), false)
        end)
        return true
      end,
    },
    client = {
      get_forwarded_ip = function() return identifier end,
      get_consumer = function() return nil end,
      get_credential = function() return nil end,
    },
    request = { get_header = function() return nil end, get_path = function() return "/" end },
    router = { get_service = function() return nil end },
    response = { error = function() node.rejected = true end },
    vault = { try = function(f, cfg) return f(cfg) end },
  }

  -- resty.redis: RESP to the real server; every command yields.
  local redis = {}
  redis.__index = redis
  function redis.new() return setmetatable({}, redis) end
  function redis:set_timeout() end
  function redis:connect() return true end -- a pooled connection: no round trip
  function redis:get_reused_times() return 1 end
  function redis:set_keepalive() return true end
  function redis:init_pipeline() self._reqs = {} end
  function redis:eval(...)
    local req = gen_req({ "eval", ... })
    if self._reqs then
      self._reqs[#self._reqs + 1] = req
      evals = evals + 1
      return true
    end
    reads = reads + 1
    local res = coroutine.yield("redis", { req })
    return res[1][1], res[1][2]
  end
  function redis:commit_pipeline()
    local reqs = self._reqs
    self._reqs = nil
    if #reqs == 0 then return {} end -- nothing written, no reply awaited
    syncs = syncs + 1
    local res = coroutine.yield("redis", reqs)
    local vals = {}
    for i, r in ipairs(res) do
      vals[i] = r[1] == nil and { false, r[2] } or r[1]
    end
    return vals
  end

  local loaded = {
    ["kong.plugins.rate-limiting.policies.cluster"] = {},
    ["kong.tools.timestamp"] = timestamp,
    ["kong.reports"] = { retrieve_redis_version = function() end },
    ["resty.redis"] = redis,
    ["table.clear"] = require "table.clear",
    ["kong.tools.table"] = { EMPTY = setmetatable({}, { __newindex = function() error("EMPTY is read-only") end }) },
    ["kong.meta"] = { version = "lab" },
    ["kong.pdk.private.rate_limiting"] = {
      store_response_header = function() end,
      apply_response_headers = function() end,
    },
  }
  local files = {
    ["kong.plugins.rate-limiting.expiration"] = "expiration.lua",
    ["kong.plugins.rate-limiting.policies"] = "policies_init.lua",
    ["kong.plugins.rate-limiting.handler"] = "handler.lua",
  }
  local env = setmetatable({ ngx = ngx, kong = kong }, { __index = _G })
  local function node_require(name)
    if loaded[name] == nil then
      local chunk = assert(loadfile(dir .. "/" .. assert(files[name], "no module " .. name)))
      setfenv(chunk, env)
      loaded[name] = chunk(name)
    end
    return loaded[name]
  end
  env.require = node_require
  node.handler = node_require("kong.plugins.rate-limiting.handler")
  node.set_identifier = function(id) identifier = id end
  return node
end

---------------------------------------------------------------- the run
local conf = {
  policy = "redis",
  sync_rate = sync_rate,
  limit_by = "ip",
  fault_tolerant = true,
  hide_client_headers = false,
  error_code = 429,
  error_message = "API rate limit exceeded",
  route_id = route_id,
  __plugin_id = "lab",
  redis = { host = host, port = port, database = 0, timeout = 2000 },
}
for name, v in pairs(limits) do conf[name] = v end

local nodes = {}
for k = 1, #offsets do nodes[k] = new_node(k) end

local decisions = {}
local n = 0
for line in io.lines() do
  local t, k, ident = line:match("^(%d+) (%d+) (%S+)$")
  t, k = tonumber(t), tonumber(k) + 1
  n = n + 1
  local i = n
  push(t, CLASS_ARRIVAL, function()
    local node = nodes[k]
    local co = coroutine.create(function()
      node.set_identifier(ident)
      node.rejected = false
      node.handler:access(conf)
      -- the request's verdict, when access() returns
      if node.rejected then
        decisions[i] = "R"
      else
        decisions[i] = "P " .. string.format("%d", now - t)
      end
      node.rejected = false
    end)
    resume(co)
  end)
end

while #heap > 0 do
  local e = pop()
  now = e.at
  e.fn()
end

for i = 1, n do
  io.write(assert(decisions[i], "no verdict for arrival " .. i), "\n")
end
io.write(string.format("reads %d syncs %d evals %d\n", reads, syncs, evals))
if #failures > 0 then
  io.stderr:write("kong.log: " .. table.concat(failures, "\n") .. "\n")
  os.exit(2)
end
-- delete the run's keys
local keys = exec({ gen_req({ "keys", "ratelimit:" .. route_id .. ":*" }) })[1][1]
if type(keys) == "table" and #keys > 0 then
  local del = { "del" }
  for _, key in ipairs(keys) do del[#del + 1] = key end
  exec({ gen_req(del) })
end
