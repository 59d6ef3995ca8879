// Memory statistics, summaries, settings, snapshots and device queries.
#include "backends/cuda/cuda_backend.h"
#include "binding/binding.h"
#include "backends/policy/policy_backend.h"
#include "core/summary.h"
#include "core/trace_replay.h"

namespace tsgpu {
namespace binding {

namespace {

Device& argDevice(const Napi::CallbackInfo& info, size_t i) {
  return DeviceRegistry::instance().get(argString(info, i, "device"));
}

Napi::Object statsToJs(Napi::Env env, const DeviceStats& stats) {
  Napi::Object o = Napi::Object::New(env);
  for (const auto& kv : flattenStats(stats)) o.Set(kv.first, static_cast<double>(kv.second));
  return o;
}

Napi::Value MemoryStats(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value { return statsToJs(info.Env(), argDevice(info, 0).allocator->stats()); });
}

Napi::Value MemorySummary(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Device& d = argDevice(info, 0);
    SummaryOptions opt;
    opt.abbreviated = argBool(info, 1, "abbreviated", false);
    opt.cuda = d.kind == DeviceKind::kCuda;
    opt.deviceIndex = d.index;
    opt.deviceName = d.name;
    return Napi::String::New(info.Env(), formatMemorySummary(d.allocator->stats(), opt));
  });
}

Napi::Value EmptyCache(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    sweepCollected(env);
    EmptyCacheReport r = argDevice(info, 0).allocator->emptyCache();
    Napi::Object o = Napi::Object::New(env);
    o.Set("releasedBytes", static_cast<double>(r.releasedBytes));
    o.Set("releasedSegments", static_cast<double>(r.releasedSegments));
    o.Set("keptBytes", static_cast<double>(r.keptBytes));
    o.Set("keptSegments", static_cast<double>(r.keptSegments));
    o.Set("keptAllocatedBytes", static_cast<double>(r.keptAllocatedBytes));
    o.Set("reason", r.reason);
    return o;
  });
}

Napi::Value ResetPeak(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    argDevice(info, 0).allocator->resetPeakStats();
    return info.Env().Undefined();
  });
}

Napi::Value ResetAccumulated(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    argDevice(info, 0).allocator->resetAccumulatedStats();
    return info.Env().Undefined();
  });
}

Napi::Value MemGetInfo(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    MemInfo m = argDevice(info, 0).backend->memInfo();
    Napi::Array a = Napi::Array::New(info.Env(), 2);
    a.Set(0u, static_cast<double>(m.freeBytes));
    a.Set(1u, static_cast<double>(m.totalBytes));
    return a;
  });
}

Napi::Value Properties(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    DeviceProperties p = argDevice(info, 0).backend->properties();
    Napi::Object o = Napi::Object::New(info.Env());
    o.Set("name", p.name);
    o.Set("totalMemory", static_cast<double>(p.totalMemory));
    o.Set("major", p.major);
    o.Set("minor", p.minor);
    o.Set("multiProcessorCount", p.multiProcessorCount);
    o.Set("l2CacheSize", static_cast<double>(p.l2CacheSize));
    o.Set("warpSize", p.warpSize);
    o.Set("maxThreadsPerBlock", p.maxThreadsPerBlock);
    o.Set("sharedMemoryPerBlock", static_cast<double>(p.sharedMemoryPerBlock));
    o.Set("isIntegrated", p.isIntegrated);
    return o;
  });
}

Napi::Value SetMemoryFraction(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    double f = argNumber(info, 0, "fraction");
    argDevice(info, 1).allocator->setMemoryFraction(f);
    return info.Env().Undefined();
  });
}

Napi::Value Synchronize(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    argDevice(info, 0).backend->synchronize();
    return info.Env().Undefined();
  });
}

Napi::Value SetAllocatorSettings(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    DeviceRegistry& reg = DeviceRegistry::instance();
    reg.setSettings(parseAllocatorSettings(argString(info, 0, "settings"), reg.settings()));
    return Napi::String::New(info.Env(), formatAllocatorSettings(reg.settings()));
  });
}

Napi::Value GetAllocatorSettings(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    return Napi::String::New(info.Env(), formatAllocatorSettings(DeviceRegistry::instance().settings()));
  });
}

Napi::Value RecordMemoryHistory(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    bool enabled = argBool(info, 1, "enabled", true);
    uint64_t maxEntries = argCount(info, 2, "maxEntries");
    bool clear = argBool(info, 3, "clearHistory", false);
    argDevice(info, 0).allocator->recordHistory(enabled, maxEntries, clear);
    return info.Env().Undefined();
  });
}

Napi::Object traceToJs(Napi::Env env, const TraceEntry& t) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("action", actionName(t.action));
  o.Set("addr", static_cast<double>(t.address));
  o.Set("size", static_cast<double>(t.size));
  o.Set("requested_size", static_cast<double>(t.requested));
  o.Set("time_us", static_cast<double>(t.timeUs));
  o.Set("frames", contextToJs(env, t.context));
  return o;
}

Napi::Value SnapshotFn(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    Device& d = argDevice(info, 0);
    Snapshot snap = d.allocator->snapshot();
    Napi::Array segments = Napi::Array::New(env);
    uint32_t si = 0;
    for (const SegmentInfo& s : snap.segments) {
      Napi::Object so = Napi::Object::New(env);
      so.Set("device", d.name);
      so.Set("address", static_cast<double>(s.address));
      so.Set("total_size", static_cast<double>(s.totalSize));
      so.Set("allocated_size", static_cast<double>(s.allocatedSize));
      so.Set("active_size", static_cast<double>(s.activeSize));
      so.Set("requested_size", static_cast<double>(s.requestedSize));
      so.Set("segment_type", s.segmentType);
      Napi::Array blocks = Napi::Array::New(env);
      uint32_t bi = 0;
      for (const BlockInfo& b : s.blocks) {
        Napi::Object bo = Napi::Object::New(env);
        bo.Set("address", static_cast<double>(b.address));
        bo.Set("size", static_cast<double>(b.size));
        bo.Set("requested_size", static_cast<double>(b.requestedSize));
        bo.Set("state", b.state);
        bo.Set("frames", contextToJs(env, b.context));
        blocks.Set(bi++, bo);
      }
      so.Set("blocks", blocks);
      segments.Set(si++, so);
    }
    Napi::Array trace = Napi::Array::New(env);
    uint32_t ti = 0;
    for (const TraceEntry& t : snap.trace) trace.Set(ti++, traceToJs(env, t));
    Napi::Object out = Napi::Object::New(env);
    out.Set("segments", segments);
    out.Set("device_traces", trace);
    return out;
  });
}

Napi::Value Devices(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    auto names = DeviceRegistry::instance().names();
    Napi::Array a = Napi::Array::New(info.Env(), names.size());
    for (uint32_t i = 0; i < names.size(); ++i) a.Set(i, names[i]);
    return a;
  });
}

Napi::Value CanonicalDevice(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    return Napi::String::New(info.Env(), DeviceRegistry::instance().canonicalize(argString(info, 0, "device")));
  });
}

Napi::Value CudaInfo(const Napi::CallbackInfo& info) {
  const CudaAvailability& a = cudaAvailability();
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("compiled", a.compiled);
  o.Set("available", a.available);
  o.Set("deviceCount", a.deviceCount);
  o.Set("reason", a.reason);
  return o;
}

// policyReplay(events: Float64Array [kind(1=a,0=f), id, bytes]*, settings?: string, capacity?: number)
Napi::Value PolicyReplay(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    if (!info[0].IsTypedArray()) throwJs(env, "TSGPU_ARG", "expected a Float64Array of events for events");
    Napi::Float64Array events = info[0].As<Napi::Float64Array>();
    std::vector<TraceEvent> list;
    list.reserve(events.ElementLength() / 3);
    for (size_t i = 0; i + 2 < events.ElementLength(); i += 3) {
      TraceEvent e;
      e.alloc = events[i] != 0;
      e.id = static_cast<uint64_t>(events[i + 1]);
      e.bytes = static_cast<uint64_t>(events[i + 2]);
      list.push_back(e);
    }
    AllocatorSettings settings;
    if (info.Length() > 1 && info[1].IsString()) settings = parseAllocatorSettings(info[1].As<Napi::String>());
    uint64_t capacity = info.Length() > 2 && info[2].IsNumber() ? argPositive(info, 2, "capacity") : (1ULL << 40);
    PolicyBackend backend(capacity, "policy", /*canMap=*/true);  // as cuda:0 on a driver with virtual memory
    ReplayResult r;
    {
      CachingAllocator allocator(&backend, "policy");
      allocator.setSettings(settings);
      r = replayTrace(allocator, list);
    }
    Napi::Object o = Napi::Object::New(env);
    o.Set("peak_allocated", static_cast<double>(r.peakAllocated));
    o.Set("peak_reserved", static_cast<double>(r.peakReserved));
    o.Set("num_device_alloc", static_cast<double>(r.numDeviceAlloc));
    o.Set("num_device_free", static_cast<double>(r.numDeviceFree));
    o.Set("num_allocs", static_cast<double>(r.numAllocs));
    o.Set("num_frees", static_cast<double>(r.numFrees));
    o.Set("ns_per_alloc", r.nsPerAlloc);
    o.Set("ns_per_free", r.nsPerFree);
    o.Set("ooms", static_cast<double>(r.ooms));
    return o;
  });
}

}  // namespace

void initMemory(Napi::Env env, Napi::Object exports) {
  const std::pair<const char*, Napi::Function::Callback> fns[] = {
      {"memoryStats", MemoryStats},
      {"memorySummary", MemorySummary},
      {"emptyCache", EmptyCache},
      {"resetPeakStats", ResetPeak},
      {"resetAccumulatedStats", ResetAccumulated},
      {"memGetInfo", MemGetInfo},
      {"deviceProperties", Properties},
      {"setMemoryFraction", SetMemoryFraction},
      {"synchronize", Synchronize},
      {"setAllocatorSettings", SetAllocatorSettings},
      {"getAllocatorSettings", GetAllocatorSettings},
      {"recordMemoryHistory", RecordMemoryHistory},
      {"snapshot", SnapshotFn},
      {"devices", Devices},
      {"canonicalDevice", CanonicalDevice},
      {"cudaInfo", CudaInfo},
      {"policyReplay", PolicyReplay},
  };
  for (const auto& f : fns) exports.Set(f.first, Napi::Function::New(env, f.second, f.first));
}

}  // namespace binding
}  // namespace tsgpu
