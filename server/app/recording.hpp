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
#include <utility>
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
  Recorder(Recorder&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Recorder& operator=(Recorder&& other) noexcept {
    if (this != &other) {
      close();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;
  ~Recorder() { close(); }

  // Opens (truncates) `path` and writes the header; nullopt with `error` set on failure.
  static std::optional<Recorder> open(const std::string& path, const RecordHeader& header,
                                      std::string& error);
  void record(std::uint64_t tick, const sim::Command& command);
  void finish(std::uint64_t end_tick, std::uint64_t state_hash);
  // reset or load_scenario replaced the world: {"world":{...header fields...}}; ticks restart.
  void world_replaced(const RecordHeader& next);

 private:
  explicit Recorder(int fd) : fd_(fd) {}
  // Writes a line whole (and it reaches the file at once: no buffer of ours); a failure is
  // dropped, as an ofstream's was: the run goes on.
  void write_line(const std::string& line);
  void close();

  // The file, opened once without following a link: every line goes through this descriptor, never
  // through the path again (a link planted at the path after the open changes nothing).
  int fd_ = -1;
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
