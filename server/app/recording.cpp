#include "app/recording.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "app/config.hpp"
#include "protocol/codec.hpp"
#include "scenarios/scenario.hpp"

namespace herd::app {
namespace {

using nlohmann::json;

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < in.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, in.size() - i);
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 3; ++k)
      v = (v << 8) | (k < n ? static_cast<unsigned char>(in[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out += k <= n ? kBase64[(v >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

// The bytes, or nullopt when `in` is not padded base64.
std::optional<std::string> base64_decode(std::string_view in) {
  if (in.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(in.size() / 4 * 3);
  for (std::size_t i = 0; i < in.size(); i += 4) {
    std::uint32_t v = 0;
    int pad = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const char ch = in[i + k];
      const char* at = ch ? std::strchr(kBase64, ch) : nullptr;
      if (ch == '=' && i + 4 == in.size() && k >= 2) {
        ++pad;
        v <<= 6;
        continue;
      }
      if (!at || pad) return std::nullopt;
      v = (v << 6) | static_cast<std::uint32_t>(at - kBase64);
    }
    for (int k = 0; k < 3 - pad; ++k) out += static_cast<char>((v >> (16 - 8 * k)) & 255);
  }
  return out;
}

std::optional<std::uint64_t> parse_hex(const std::string& h) {
  std::uint64_t value = 0;
  const char* digits = h.c_str() + (h.rfind("0x", 0) == 0 ? 2 : 0);
  const auto [end, ec] = std::from_chars(digits, h.c_str() + h.size(), value, 16);
  if (ec != std::errc{} || end != h.c_str() + h.size() || digits == end) return std::nullopt;
  return value;
}

// The scenario a recording names, loaded as the server's load_scenario would: a name of
// scenario_dir, or a path to a file directly in scenario_dir (what --scenario wrote into the header
// when it was given one). Anything else gets load_named's answer for a name it does not know, the
// same sentence whether or not such a file exists, and no file outside scenario_dir is opened.
scenario::Loaded<scenario::Scenario> load_recorded_scenario(const std::string& given,
                                                            const std::string& scenario_dir) {
  namespace fs = std::filesystem;
  const fs::path path(given);
  const bool is_path = given.find('/') != std::string::npos || path.extension() == ".json";
  if (!is_path) return scenario::load_named(given, scenario_dir);
  std::error_code ec1, ec2;
  const fs::path dir = fs::weakly_canonical(fs::path(scenario_dir), ec1);
  const fs::path file = fs::weakly_canonical(path, ec2);
  if (ec1 || ec2 || path.extension() != ".json" || file.parent_path() != dir)
    return scenario::load_named(given, scenario_dir);  // not a name of the list: refused
  return scenario::load_named(file.stem().string(), scenario_dir);
}

}  // namespace

std::optional<Recorder> Recorder::open(const std::string& path, const RecordHeader& header,
                                       std::string& error) {
  // Made 0600 (the world's commands are its owner's) and never through a link; an existing file
  // is narrowed to 0600 too. The descriptor opened here is the one written: the path is not
  // opened again, so a link planted there afterwards is never followed.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 || ::fchmod(fd, 0600) != 0) {
    error = "cannot open '" + path + "' for writing: " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return std::nullopt;
  }
  Recorder r(fd);
  json first{{"herd_record", 1},
             {"scenario", header.scenario},
             {"seed", header.seed},
             {"tick_rate", header.tick_rate}};
  if (!header.start_checkpoint.empty()) {
    auto world = sim::World::load_checkpoint(header.start_checkpoint);
    if (auto* why = std::get_if<std::string>(&world)) {
      error = "cannot record from the restored world: " + *why;
      return std::nullopt;
    }
    const sim::World& w = std::get<sim::World>(world);
    first["start"] = {{"tick", w.tick()},
                      {"state_hash", hex(w.state_hash())},
                      {"checkpoint", base64_encode(header.start_checkpoint)}};
  }
  r.write_line(first.dump());
  return r;
}

void Recorder::write_line(const std::string& line) {
  if (fd_ < 0) return;
  const std::string text = line + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

void Recorder::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void Recorder::record(std::uint64_t tick, const sim::Command& command) {
  const std::string wire = protocol::encode(protocol::CommandMsg{0, command});
  write_line("{\"tick\":" + std::to_string(tick) + ",\"command\":" + wire + "}");
}

void Recorder::world_replaced(const RecordHeader& next) {
  write_line(json{
      {"world", {{"scenario", next.scenario}, {"seed", next.seed}, {"tick_rate", next.tick_rate}}}}
                 .dump());
}

void Recorder::finish(std::uint64_t end_tick, std::uint64_t state_hash) {
  write_line(json{{"end_tick", end_tick}, {"state_hash", hex(state_hash)}}.dump());
}

namespace {
std::variant<ReplayResult, std::string> replay_file(const std::string& path,
                                                    const std::string& scenario_dir);
}  // namespace

std::variant<ReplayResult, std::string> replay(const std::string& path,
                                               const std::string& scenario_dir) {
  // A recording is input like any other: a field of the wrong type must give a message, not an
  // exception out of main.
  try {
    return replay_file(path, scenario_dir);
  } catch (const std::exception& e) {
    return path + ": not a usable recording (" + e.what() + ")";
  }
}

namespace {

std::variant<ReplayResult, std::string> replay_file(const std::string& path,
                                                    const std::string& scenario_dir) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot open recording '" + path + "'";
  std::string line;
  if (!std::getline(in, line)) return path + " is empty";
  const json header = json::parse(line, nullptr, false);
  if (header.is_discarded() || !header.is_object() || header.value("herd_record", 0) != 1)
    return path + ": line 1 is not a herd recording header";
  // The world a header (or a later "world" line) describes; errors name the field.
  auto make_world = [&](const json& h) -> std::variant<sim::World, std::string> {
    if (!h.is_object()) return std::string("the world is not a JSON object");
    const json* name = h.contains("scenario") ? &h["scenario"] : nullptr;
    if (!name || !name->is_string()) return std::string("scenario: must be a scenario's name");
    auto loaded = load_recorded_scenario(name->get<std::string>(), scenario_dir);
    if (auto* why = std::get_if<std::string>(&loaded)) return "scenario: " + *why;
    scenario::Scenario sc = std::get<scenario::Scenario>(loaded);
    const json* rate = h.contains("tick_rate") ? &h["tick_rate"] : nullptr;
    if (!rate || !rate->is_number()) return std::string("tick_rate: must be a number in [1, 1000]");
    if (std::string why = check_tick_rate(rate->get<double>()); !why.empty())
      return "tick_rate " + json(rate->get<double>()).dump() + ": " + why;
    sc.def.dt = 1.0 / rate->get<double>();
    auto built = scenario::build_world(sc, h.value("seed", std::uint64_t{0}));
    if (auto* why = std::get_if<std::string>(&built)) return *why;
    return std::move(std::get<sim::World>(built));
  };
  std::variant<sim::World, std::string> first = std::string();
  if (header.contains("start")) {
    // The run started from a restored world: the recording carries it.
    const json& start = header["start"];
    if (!start.is_object() || !start.contains("checkpoint") || !start["checkpoint"].is_string())
      return path + ": line 1's start has no checkpoint";
    const auto bytes = base64_decode(start["checkpoint"].get<std::string>());
    if (!bytes) return path + ": line 1's start checkpoint is not base64";
    first = sim::World::load_checkpoint(*bytes);
    if (auto* why = std::get_if<std::string>(&first))
      return path + ": line 1's start checkpoint: " + *why;
    const auto hash = parse_hex(start.value("state_hash", std::string()));
    if (!hash || *hash != std::get<sim::World>(first).state_hash())
      return path + ": line 1's start checkpoint does not have the state hash the recording says";
  } else {
    first = make_world(header);
    if (auto* why = std::get_if<std::string>(&first)) return path + ": line 1: " + *why;
  }
  sim::World world = std::move(std::get<sim::World>(first));

  ReplayResult result;
  std::optional<std::uint64_t> end_tick;
  // Ticks stepped so far, all worlds together; a line that would take them past kMaxRunTicks is
  // refused before a tick of it is run (a tick of 2^64-1 would step until killed).
  std::uint64_t stepped = 0;
  auto within_budget = [&](std::uint64_t tick, const char* field,
                           const std::string& where) -> std::string {
    const std::uint64_t steps = tick > world.tick() ? tick - world.tick() : 0;
    if (steps <= kMaxRunTicks - stepped) return {};
    return where + ": " + field + " " + std::to_string(tick) + " would take the replay past " +
           std::to_string(kMaxRunTicks) + " ticks in all, the most a replay runs";
  };
  // Commands of one tick are gathered, then queued together before that tick's step, as live.
  std::uint64_t pending_tick = 0;
  std::vector<sim::Command> pending;
  // step false: the commands are applied without a step (they came after the run's last tick).
  auto flush = [&](bool step = true) {
    if (pending.empty()) return;
    while (world.tick() + 1 < pending_tick) {
      world.step();
      ++stepped;
    }
    for (const sim::Command& c : pending) world.apply(c);
    if (step) {
      world.step();
      ++stepped;
    }
    result.commands += pending.size();
    pending.clear();
  };
  for (std::size_t number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const json j = json::parse(line, nullptr, false);
    const std::string where = path + ":" + std::to_string(number);
    if (j.is_discarded() || !j.is_object())
      return where + ": not a JSON object (a truncated last line?)";
    if (j.contains("end_tick")) {
      if (!j["end_tick"].is_number_unsigned())
        return where + ": end_tick must be a whole number of ticks";
      end_tick = j["end_tick"].get<std::uint64_t>();
      flush(!(pending_tick == *end_tick + 1));
      if (std::string why = within_budget(*end_tick, "end_tick", where); !why.empty()) return why;
      const auto value = parse_hex(j.value("state_hash", std::string()));
      if (!value) return where + ": bad state_hash";
      result.recorded_hash = *value;
      break;
    }
    if (j.contains("world")) {  // reset or load_scenario: a new world, ticks from its start
      flush();
      auto next = make_world(j["world"]);
      if (auto* why = std::get_if<std::string>(&next)) return where + ": " + *why;
      world = std::move(std::get<sim::World>(next));
      pending_tick = 0;
      continue;
    }
    if (!j.contains("tick") || !j["tick"].is_number_unsigned())
      return where + ": tick must be a whole number of ticks";
    const std::uint64_t tick = j["tick"].get<std::uint64_t>();
    if (tick != pending_tick) flush();
    if (std::string why = within_budget(tick, "tick", where); !why.empty()) return why;
    if (tick <= world.tick())
      return where + ": tick " + std::to_string(tick) + " is not after " +
             std::to_string(world.tick());
    auto decoded = protocol::decode_client(j.contains("command") ? j["command"].dump() : "");
    if (auto* err = std::get_if<protocol::Error>(&decoded)) return where + ": " + err->message;
    const auto* cmd =
        std::get_if<protocol::CommandMsg>(&std::get<protocol::ClientMessage>(decoded));
    if (!cmd) return where + ": not a command";
    pending_tick = tick;
    pending.push_back(cmd->command);
  }
  // Commands of the tick after end_tick were applied as they arrived after the last tick, before
  // the server stopped: they are in the final state, which no step followed.
  flush(!(end_tick && pending_tick == *end_tick + 1));
  const std::uint64_t last = end_tick.value_or(world.tick());
  while (world.tick() < last) world.step();  // within the budget: end_tick was checked
  result.end_tick = world.tick();
  result.state_hash = world.state_hash();
  return result;
}

}  // namespace

}  // namespace herd::app
