// Record and replay: every command the world accepted, with its tick, as JSON lines, so
// a run can be replayed headless to the same state hash (the world is deterministic).
//
//   {"herd_record":1,"scenario":"default","seed":1,"tick_rate":60}
//      or, for a server that resumed from a checkpoint, the world it started from:
//   {"herd_record":1,...,"start":{"tick":5400,"state_hash":"0x...","checkpoint":"<base64>"}}
//   {"tick":42,"command":{"type":"command","seq":0,"cmd":"spawn","count":3,"group":0}}
//   ...
//   {"world":{"scenario":"maze","seed":3,"tick_rate":60}}   (reset or load_scenario: a new world)
//   {"end_tick":1200,"state_hash":"0x..."}          (written at a clean shutdown)
//
// Commands are written exactly as the wire carries them and read back through the protocol's own
// decoder. Each line is flushed as written: a killed server loses nothing it had applied.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <variant>

#include "herd/sim/commands.hpp"

namespace herd::app {

struct RecordHeader {
  std::string scenario;  // a name or path, as given to --scenario
  std::uint64_t seed = 0;
  double tick_rate = 60;
  // The world the run started from when it was not the scenario's (restored from a checkpoint):
  // World::save_checkpoint's bytes; empty otherwise.
  std::string start_checkpoint;
};

class Recorder {
 public:
  // Opens (truncates) `path` and writes the header; nullopt with `error` set on failure.
  static std::optional<Recorder> open(const std::string& path, const RecordHeader& header,
                                      std::string& error);
  void record(std::uint64_t tick, const sim::Command& command);
  void finish(std::uint64_t end_tick, std::uint64_t state_hash);
  // reset or load_scenario replaced the world: {"world":{...header fields...}}; ticks restart.
  void world_replaced(const RecordHeader& next);

 private:
  std::ofstream out_;
};

struct ReplayResult {
  std::uint64_t end_tick = 0;
  std::uint64_t state_hash = 0;
  std::optional<std::uint64_t> recorded_hash;  // from the footer, when the run ended cleanly
  std::size_t commands = 0;
};

// Replays a recording: builds the recorded scenario with its seed (scenarios from scenario_dir),
// or loads the world it started from when it carries one (checked against its state hash),
// applies each command at its tick, runs to the recorded end tick (or the last command's tick if
// the run did not end cleanly). A value, or a sentence saying what is wrong with the file.
std::variant<ReplayResult, std::string> replay(const std::string& path,
                                               const std::string& scenario_dir);

}  // namespace herd::app
