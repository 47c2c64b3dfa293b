-- wrk's per-answer check (bench/driver/wrk.ts): every response's status and whole body, byte
-- for byte, against the expected body. The one exchange comes from the data file that
-- BENCH_WRK_DATA names (requests, expected, headers, sample_path), written per run.
dofile(os.getenv("BENCH_WRK_DATA"))
wrk.method = "POST"
wrk.body = requests[1]
for name, value in pairs(headers) do wrk.headers[name] = value end
local threads = {}
function setup(thread) table.insert(threads, thread) end
checked, wrong, sample = 0, 0, ""
function response(status, headers, body)
  checked = checked + 1
  if status ~= 200 or body ~= expected[1] then
    wrong = wrong + 1
    if sample == "" then sample = tostring(status) .. " " .. string.sub(body or "", 1, 400) end
  end
end
function done(summary, latency, requests)
  local c, w, s = 0, 0, ""
  for _, t in ipairs(threads) do
    c, w = c + t:get("checked"), w + t:get("wrong")
    if s == "" then s = t:get("sample") end
  end
  if s ~= "" then local f = io.open(sample_path, "w") f:write(s) f:close() end
  local e = summary.errors
  io.write(string.format('BENCH_WRK {"requests":%d,"duration_us":%d,"errors":%d,"mean_us":%.1f,"p50_us":%d,"p99_us":%d,"max_us":%d,"checked":%d,"wrong":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, latency.mean,
    latency:percentile(50), latency:percentile(99), latency.max, c, w))
end
