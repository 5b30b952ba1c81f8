// breakout.bench/1 <-> BenchDoc; field meanings are documented in docs/bench.md.
#include "harness/bench/bench_doc.h"

#include <fstream>

#include "harness/core/error.h"
#include "harness/core/json_file.h"
#include "harness/core/text.h"

namespace breakout::bench {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json figure_json(const Figure& f) {
  json j = {{"name", f.name}, {"kind", f.kind}, {"via", f.via}, {"status", f.status}, {"reason", f.reason}};
  if (f.status != "ok") return j;
  j["unit"] = "ms";
  j["n"] = f.ms.n;
  j["repetitions"] = f.repetition_ms.size();
  j["iterations_per_repetition"] = f.schedule.iterations;
  j["p50"] = f.ms.p50, j["p90"] = f.ms.p90, j["p99"] = f.ms.p99;
  j["min"] = f.ms.min, j["max"] = f.ms.max, j["mean"] = f.ms.mean, j["stddev"] = f.ms.stddev;
  j["ratio_to_raw"] = f.ratio_to_raw > 0 ? json(f.ratio_to_raw) : json(nullptr);
  j["calibration_ms"] = f.calibration_ms;
  j["repetition_ms"] = f.repetition_ms;
  if (f.kind == "pipe") {
    j["bytes_per_spawn"] = f.bytes_per_spawn;
    j["bytes_per_second"] = f.bytes_per_second;
  }
  return j;
}

Figure figure_from(const json& j) {
  Figure f;
  f.name = j.at("name").get<std::string>();
  f.kind = j.at("kind").get<std::string>();
  f.via = j.value("via", "");
  f.status = j.at("status").get<std::string>();
  f.reason = j.value("reason", "");
  if (f.status != "ok") return f;
  f.ms.n = j.at("n").get<std::size_t>();
  f.ms.p50 = j.at("p50").get<double>(), f.ms.p90 = j.at("p90").get<double>(), f.ms.p99 = j.at("p99").get<double>();
  f.ms.min = j.at("min").get<double>(), f.ms.max = j.at("max").get<double>();
  f.ms.mean = j.value("mean", 0.0), f.ms.stddev = j.value("stddev", 0.0);
  if (j.contains("ratio_to_raw") && j["ratio_to_raw"].is_number()) f.ratio_to_raw = j["ratio_to_raw"].get<double>();
  f.calibration_ms = j.value("calibration_ms", 0.0);
  f.repetition_ms = j.at("repetition_ms").get<std::vector<double>>();
  f.schedule.repetitions = static_cast<int>(f.repetition_ms.size());
  f.schedule.iterations = j.value("iterations_per_repetition", std::int64_t{1});
  f.bytes_per_spawn = j.value("bytes_per_spawn", std::uint64_t{0});
  f.bytes_per_second = j.value("bytes_per_second", 0.0);
  return f;
}

}  // namespace

json bench_json(const BenchDoc& doc) {
  const BenchInfo& i = doc.info;
  json figures = json::array();
  for (const auto& f : doc.figures) figures.push_back(figure_json(f));
  return {{"schema", kBenchSchema},
          {"run",
           {{"id", i.run_id},
            {"spawner", {{"name", i.spawner}, {"version", i.spawner_version}, {"description", i.spawner_description},
                         {"arg", i.spawner_arg}}},
            {"policy", i.policy},
            {"probe", i.probe},
            {"breakout_version", i.breakout_version},
            {"commit", i.commit},
            {"platform", i.platform},
            {"kernel", i.kernel},
            {"host", i.host},
            {"cpus", i.cpus},
            {"started", i.started_utc},
            {"finished", i.finished_utc},
            {"wall_seconds", i.wall_seconds},
            {"settings", {{"min_time_s", i.settings.min_time_s}, {"repetitions", i.settings.repetitions},
                          {"budget_s", i.settings.budget_s}, {"spawn_timeout_s", i.settings.spawn_timeout_s}}}}},
          {"benchmarks", figures}};
}

BenchDoc bench_from_json(const json& j) {
  try {
    if (j.value("schema", "") != kBenchSchema) throw Error(std::string("not a ") + kBenchSchema + " document");
    BenchDoc d;
    const json& r = j.at("run");
    BenchInfo& i = d.info;
    i.run_id = r.at("id").get<std::string>();
    const json& s = r.at("spawner");
    i.spawner = s.at("name").get<std::string>();
    i.spawner_version = s.value("version", ""), i.spawner_description = s.value("description", "");
    i.spawner_arg = s.value("arg", "");
    i.policy = r.value("policy", ""), i.probe = r.value("probe", "");
    i.breakout_version = r.value("breakout_version", ""), i.commit = r.value("commit", "");
    i.platform = r.value("platform", ""), i.kernel = r.value("kernel", ""), i.host = r.value("host", "");
    i.cpus = r.value("cpus", 0);
    i.started_utc = r.value("started", ""), i.finished_utc = r.value("finished", "");
    i.wall_seconds = r.value("wall_seconds", 0.0);
    if (r.contains("settings")) {
      const json& st = r["settings"];
      i.settings.min_time_s = st.value("min_time_s", i.settings.min_time_s);
      i.settings.repetitions = st.value("repetitions", i.settings.repetitions);
      i.settings.budget_s = st.value("budget_s", i.settings.budget_s);
      i.settings.spawn_timeout_s = st.value("spawn_timeout_s", i.settings.spawn_timeout_s);
    }
    for (const auto& f : j.at("benchmarks")) d.figures.push_back(figure_from(f));
    return d;
  } catch (const json::exception& e) {
    throw Error(std::string("not a valid ") + kBenchSchema + " file: " + json_error_text(e));
  }
}

bool is_bench_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  std::ifstream in(path);
  const json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  return j.is_object() && j.value("schema", "") == kBenchSchema;
}

BenchDoc load_bench(const fs::path& path) {
  const json j = read_json_file(path, "bench file");  // plain words on bad JSON
  try {
    return bench_from_json(j);
  } catch (const Error& e) {
    throw Error("bad-bench", printable_path(path) + ": " + printable_excerpt(e.what(), 600));
  }
}

void write_bench(const fs::path& path, const BenchDoc& doc) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream out(path);
  out << bench_json(doc).dump(2) << "\n";
  if (!out) throw Error("cannot write " + path.string());
}

}  // namespace breakout::bench
