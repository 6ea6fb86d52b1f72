-- Put in front of each fenced write script when it is loaded (Redis scripts cannot include one another).

-- Whether fencing token a is lower than token b, both non-negative integers in decimal without leading zeros.
-- Compared digit by digit: Lua numbers are doubles, which cannot tell apart all tokens above 2^53, and comparing
-- strings with < would depend on the server's locale.
local function is_lower(a, b)
	if #a ~= #b then
		return #a < #b
	end
	for i = 1, #a do
		local x, y = string.byte(a, i), string.byte(b, i)
		if x ~= y then
			return x < y
		end
	end
	return false
end

-- Returns the highest token the resource has seen when the caller's is lower (the write must be refused), else nil.
-- An equal token is the same holder writing again.
local function stale_against(fence_key, token)
	local highest = redis.call('get', fence_key)
	if highest and is_lower(token, highest) then
		return highest
	end
	return nil
end

-- Records the caller's token as the highest seen, for as long as the resource lives: the fence key takes the
-- resource's TTL, or none when the resource has none, so that fences never outnumber resources. Called after the
-- write, so that a write that fails (a wrong type, an overflow) leaves the fence as it was.
local function record_token(fence_key, resource_key, token)
	local ttl = redis.call('pttl', resource_key)
	if ttl > 0 then
		redis.call('set', fence_key, token, 'PX', ttl)
	else
		redis.call('set', fence_key, token)
	end
end

